package force

import (
	"bytes"
	"testing"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/testenv"
)

// memory is a datasource's signal memory, two signals of 4 and 2 bytes,
// whose Synchronise keeps a copy of it: what a real producer publishes.
type memory struct {
	datasource.DataSource // only Synchronise is called
	mem, sent             []byte
	syncs                 int
}

func (m *memory) Synchronise() error {
	m.syncs++
	m.sent = append(m.sent[:0], m.mem...)
	return nil
}

func newMemory() *memory { return &memory{mem: make([]byte, 6), sent: make([]byte, 0, 6)} }

func TestForceWinsUntilReleased(t *testing.T) {
	m := newMemory()
	var f Forces
	ds := f.Wrap(m)
	f.Force(0, m.mem[0:4], []byte{1, 2, 3, 4})
	f.Force(1, m.mem[4:6], []byte{9, 9})
	for i := range 3 {
		copy(m.mem, []byte{byte(i), 0, 0, 0, byte(i), 0}) // the broker's copies
		if err := ds.Synchronise(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(m.sent, []byte{1, 2, 3, 4, 9, 9}) {
			t.Fatalf("cycle %d sent %v", i, m.sent)
		}
	}
	if got := f.Forced(); len(got) != 2 || !bytes.Equal(got[1], []byte{9, 9}) {
		t.Errorf("forced %v", got)
	}
	if !f.Release(0) || f.Release(0) {
		t.Error("release reported wrong")
	}
	copy(m.mem, []byte{42, 0, 0, 0, 42, 0})
	ds.Synchronise()
	if !bytes.Equal(m.sent, []byte{42, 0, 0, 0, 9, 9}) {
		t.Errorf("after releasing signal 0, sent %v", m.sent)
	}
	f.Force(1, m.mem[4:6], []byte{7, 7}) // replaces the earlier force
	f.Release(1)
	copy(m.mem, []byte{5, 0, 0, 0, 5, 0})
	ds.Synchronise()
	if !bytes.Equal(m.sent, []byte{5, 0, 0, 0, 5, 0}) || len(f.Forced()) != 0 || m.syncs != 5 {
		t.Errorf("all released: sent %v, forced %v, %d synchronisations", m.sent, f.Forced(), m.syncs)
	}
}

func TestForceConcurrentWithSynchronise(t *testing.T) {
	m := newMemory()
	var f Forces
	ds := f.Wrap(m)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 1000 {
			f.Force(0, m.mem[0:4], []byte{byte(i), 0, 0, 0})
			f.Release(0)
		}
	}()
	for range 1000 {
		ds.Synchronise()
	}
	<-done
}

func TestSynchroniseWithForcesNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	m := newMemory()
	var f Forces
	ds := f.Wrap(m)
	f.Force(1, m.mem[4:6], []byte{1, 1})
	if n := testing.AllocsPerRun(1000, func() { _ = ds.Synchronise() }); n != 0 {
		t.Errorf("%v allocs", n)
	}
}
