package broker

import (
	"fmt"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/rt"
)

// The broker is a step of an rt.Thread.
var _ rt.Executable = (*MemoryMapSynchronisedOutputBroker)(nil)

// memoryDataSource is the smallest real DataSource: memory and a count of
// Synchronise calls, with a copy of the memory taken at each one.
type memoryDataSource struct {
	sigs   []datasource.Signal
	mem    *datasource.Memory
	syncs  int
	latest []byte
}

func (d *memoryDataSource) Name() string                 { return "mem" }
func (d *memoryDataSource) Signals() []datasource.Signal { return d.sigs }
func (d *memoryDataSource) AllocateMemory() error {
	d.mem = datasource.NewMemory(d.sigs)
	d.latest = make([]byte, d.mem.Size())
	return nil
}
func (d *memoryDataSource) GetSignalMemoryBuffer(i int) []byte { return d.mem.Signal(i) }
func (d *memoryDataSource) PrepareNextState() error            { return nil }
func (d *memoryDataSource) Synchronise() error                 { d.syncs++; copy(d.latest, d.mem.Block()); return nil }
func (d *memoryDataSource) Stop() error                        { return nil }

func newDS(t testing.TB) *memoryDataSource {
	d := &memoryDataSource{sigs: []datasource.Signal{
		{Name: "Counter", Type: datasource.Uint32},
		{Name: "Trigger", Type: datasource.Uint8},
		{Name: "Wave", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 4},
		{Name: "Held", Type: datasource.Int16},
	}}
	if err := datasource.ValidateSignals("mem", d.sigs); err != nil {
		t.Fatal(err)
	}
	d.AllocateMemory()
	return d
}

func TestExecuteCopiesThenSynchronises(t *testing.T) {
	d := newDS(t)
	counter := []uint32{0}
	trig := []uint8{0}
	wave := make([]float32, 4)
	b, err := NewMemoryMapSynchronisedOutputBroker(d, []Output{
		{Signal: "Wave", Src: datasource.Bytes(wave)},
		{Signal: "Counter", Src: datasource.Bytes(counter)},
		{Signal: "Trigger", Src: datasource.Bytes(trig)},
	})
	if err != nil {
		t.Fatal(err)
	}
	datasource.View[int16](d.GetSignalMemoryBuffer(3))[0] = -5
	for i := 1; i <= 3; i++ {
		counter[0] = uint32(i)
		trig[0] = uint8(i % 2)
		for k := range wave {
			wave[k] = float32(i*10 + k)
		}
		if err := b.Execute(); err != nil {
			t.Fatal(err)
		}
		if d.syncs != i {
			t.Fatalf("syncs %d", d.syncs)
		}
		if got := datasource.View[uint32](d.latest[0:4])[0]; got != uint32(i) {
			t.Errorf("counter %d", got)
		}
		if d.latest[4] != uint8(i%2) {
			t.Errorf("trigger %d", d.latest[4])
		}
		w := datasource.View[float32](d.latest[5:21])
		if w[3] != float32(i*10+3) {
			t.Errorf("wave %v", w)
		}
		if got := datasource.View[int16](d.latest[21:23])[0]; got != -5 {
			t.Errorf("unfed signal changed: %d", got)
		}
	}
}

func TestNewBrokerErrors(t *testing.T) {
	d := newDS(t)
	_, err := NewMemoryMapSynchronisedOutputBroker(d, []Output{
		{Signal: "Nope", Src: make([]byte, 4)},
		{Signal: "Counter", Src: make([]byte, 2)},
		{Signal: "Trigger", Src: make([]byte, 1)},
		{Signal: "Trigger", Src: make([]byte, 1)},
	})
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{`output "Nope" names no signal`, `signal "Counter" is 4 bytes (uint32 × 1) but its output is 2 bytes`, `signal "Trigger" is fed by more than one output`} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q lacks %q", err, w)
		}
	}
}

func TestExecuteNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	d := newDS(t)
	counter := []uint32{0}
	wave := make([]float32, 4)
	b, err := NewMemoryMapSynchronisedOutputBroker(d, []Output{{Signal: "Counter", Src: datasource.Bytes(counter)}, {Signal: "Wave", Src: datasource.Bytes(wave)}})
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(1000, func() { counter[0]++; _ = b.Execute() }); n != 0 {
		t.Errorf("Execute: %v allocs", n)
	}
}

func BenchmarkExecute(b *testing.B) {
	for _, size := range []int{64, 4096, 65536} {
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			d := &memoryDataSource{sigs: []datasource.Signal{{Name: "A", Type: datasource.Uint8, NumberOfDimensions: 1, NumberOfElements: size}}}
			d.AllocateMemory()
			src := make([]byte, size)
			br, err := NewMemoryMapSynchronisedOutputBroker(d, []Output{{Signal: "A", Src: src}})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				_ = br.Execute()
			}
		})
	}
}

func TestForceWinsUntilReleased(t *testing.T) {
	d := newDS(t)
	counter := []uint32{0}
	b, err := NewMemoryMapSynchronisedOutputBroker(d, []Output{{Signal: "Counter", Src: datasource.Bytes(counter)}})
	if err != nil {
		t.Fatal(err)
	}
	var f Forces
	b.SetForces(&f)
	f.Force(0, d.GetSignalMemoryBuffer(0), datasource.Bytes([]uint32{777}))
	f.Force(3, d.GetSignalMemoryBuffer(3), datasource.Bytes([]int16{-9}))
	for i := 1; i <= 3; i++ {
		counter[0] = uint32(i)
		b.Execute()
		if got := datasource.View[uint32](d.latest[0:4])[0]; got != 777 {
			t.Fatalf("forced counter %d", got)
		}
	}
	if got := datasource.View[int16](d.latest[21:23])[0]; got != -9 {
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
	if got := datasource.View[uint32](d.latest[0:4])[0]; got != 42 {
		t.Errorf("released counter %d", got)
	}
	if got := datasource.View[int16](d.latest[21:23])[0]; got != -9 {
		t.Errorf("other force lost: %d", got)
	}
}

func TestForceConcurrentWithExecute(t *testing.T) {
	d := newDS(t)
	counter := []uint32{0}
	b, _ := NewMemoryMapSynchronisedOutputBroker(d, []Output{{Signal: "Counter", Src: datasource.Bytes(counter)}})
	var f Forces
	b.SetForces(&f)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 1000; i++ {
			f.Force(0, d.GetSignalMemoryBuffer(0), datasource.Bytes([]uint32{uint32(i)}))
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
	b, _ := NewMemoryMapSynchronisedOutputBroker(d, []Output{{Signal: "Counter", Src: datasource.Bytes(counter)}})
	var f Forces
	b.SetForces(&f)
	f.Force(1, d.GetSignalMemoryBuffer(1), []byte{1})
	if n := testing.AllocsPerRun(1000, func() { _ = b.Execute() }); n != 0 {
		t.Errorf("%v allocs", n)
	}
}
