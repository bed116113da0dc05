package broker

import (
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

func TestForceWinsUntilReleased(t *testing.T) {
	d := newDS(t)
	counter := []uint32{0}
	b, err := NewMemoryMapSynchronisedOutputBroker(d, []Output{Bind("Counter", counter)})
	if err != nil {
		t.Fatal(err)
	}
	var f Forces
	b.SetForces(&f)
	f.Force(0, testenv.Must(d.GetSignalMemoryBuffer(0)), bytesOf([]uint32{777}))
	f.Force(3, testenv.Must(d.GetSignalMemoryBuffer(3)), bytesOf([]int16{-9}))
	for i := 1; i <= 3; i++ {
		counter[0] = uint32(i)
		b.Execute()
		if got := viewOf[uint32](d.latest[0:4])[0]; got != 777 {
			t.Fatalf("forced counter %d", got)
		}
	}
	if got := viewOf[int16](d.latest[21:23])[0]; got != -9 {
		t.Errorf("forced unfed signal %d", got)
	}
	if len(f.Forced()) != 2 {
		t.Errorf("forced %v", f.Forced())
	}
	if !f.Release(0) || f.Release(0) {
		t.Error("release reported wrong")
	}
	counter[0] = 42
	b.Execute()
	if got := viewOf[uint32](d.latest[0:4])[0]; got != 42 {
		t.Errorf("released counter %d", got)
	}
	if got := viewOf[int16](d.latest[21:23])[0]; got != -9 {
		t.Errorf("other force lost: %d", got)
	}
}

func TestForceConcurrentWithExecute(t *testing.T) {
	d := newDS(t)
	counter := []uint32{0}
	b, _ := NewMemoryMapSynchronisedOutputBroker(d, []Output{Bind("Counter", counter)})
	var f Forces
	b.SetForces(&f)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 1000; i++ {
			f.Force(0, testenv.Must(d.GetSignalMemoryBuffer(0)), bytesOf([]uint32{uint32(i)}))
			f.Release(0)
		}
	}()
	for i := 0; i < 1000; i++ {
		b.Execute()
	}
	<-done
}

func TestExecuteWithForcesNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	d := newDS(t)
	counter := []uint32{0}
	b, _ := NewMemoryMapSynchronisedOutputBroker(d, []Output{Bind("Counter", counter)})
	var f Forces
	b.SetForces(&f)
	f.Force(1, testenv.Must(d.GetSignalMemoryBuffer(1)), []byte{1})
	if n := testing.AllocsPerRun(1000, func() { _ = b.Execute() }); n != 0 {
		t.Errorf("%v allocs", n)
	}
}
