package gam

import (
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/testenv"
)

func TestTimer(t *testing.T) {
	var counter, timeUs uint32
	g := NewTimer("timer", &counter, &timeUs)
	if g.Name() != "timer" {
		t.Errorf("Name = %q", g.Name())
	}
	o := g.Outputs()
	if len(o) != 2 || o[0].Name != "Counter" || o[1].Name != "Time" ||
		o[0].Type != datasource.Uint32 || o[1].Type != datasource.Uint32 || len(o[0].Mem) != 4 || len(o[1].Mem) != 4 {
		t.Fatalf("outputs %+v", o)
	}
	for c := uint32(1); c < 5; c++ {
		counter, timeUs = c, c*1000+7
		if err := g.Execute(); err != nil {
			t.Fatal(err)
		}
		if got := view[uint32](o[0].Mem)[0]; got != c {
			t.Errorf("Counter = %d, want %d", got, c)
		}
		if got := view[uint32](o[1].Mem)[0]; got != c*1000+7 {
			t.Errorf("Time = %d, want %d", got, c*1000+7)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("NewTimer with a nil pointer did not panic")
		}
	}()
	NewTimer("bad", nil, &timeUs)
}

func TestIOGAM(t *testing.T) {
	var counter, timeUs uint32
	tm := NewTimer("timer", &counter, &timeUs)
	w := mustWaveform(t, WaveformConfig{Shape: Sine, Amplitude: 100, Frequency: 10, SamplingRate: 1000, Type: datasource.Int16, Elements: 64})
	in := append(append([]Output(nil), tm.Outputs()...), w.Outputs()...)
	g := NewIOGAM("io", in)
	out := g.Outputs()
	if g.Name() != "io" || len(out) != 3 {
		t.Fatalf("IOGAM %q has %d outputs", g.Name(), len(out))
	}
	for i := range in {
		if out[i].Name != in[i].Name || out[i].Type != in[i].Type || out[i].Elements != in[i].Elements || len(out[i].Mem) != len(in[i].Mem) {
			t.Errorf("output %d = %+v does not mirror %+v", i, out[i], in[i])
		}
		if &out[i].Mem[0] == &in[i].Mem[0] {
			t.Errorf("output %d aliases its input", i)
		}
	}
	for c := uint32(1); c < 4; c++ {
		counter, timeUs = c, 10*c
		tm.Execute()
		w.Execute()
		if err := g.Execute(); err != nil {
			t.Fatal(err)
		}
		for i := range in {
			if string(out[i].Mem) != string(in[i].Mem) {
				t.Errorf("cycle %d: output %q differs from its input", c, out[i].Name)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("NewIOGAM with an inconsistent input did not panic")
		}
	}()
	NewIOGAM("bad", []Output{{Name: "x", Type: datasource.Uint32, Elements: 2, Mem: make([]byte, 4)}})
}

var sinkErr error

// Every Execute of every GAM is allocation-free: each shape and type, as a
// scalar, an array with a sampling rate and an array at the cycle time.
func TestExecuteNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	check := func(name string, g GAM) {
		t.Helper()
		if n := testing.AllocsPerRun(100, func() { sinkErr = g.Execute() }); n != 0 {
			t.Errorf("%s: %v allocations per Execute", name, n)
		}
	}
	for _, shape := range allShapes {
		for _, typ := range allTypes {
			for _, layout := range []struct {
				name     string
				elements int
				sr       float64
			}{{"scalar", 1, 0}, {"array", 1000, 1e6}, {"array-at-cycle-time", 16, 0}} {
				w := mustWaveform(t, WaveformConfig{Shape: shape, Amplitude: 3, Frequency: 50, Offset: 1, DutyCycle: 0.5,
					Seed: 1, SamplingRate: layout.sr, Type: typ, Elements: layout.elements, CyclePeriod: time.Millisecond})
				check(shape.String()+"/"+typ.String()+"/"+layout.name, w)
			}
		}
	}
	var c, tu uint32
	tm := NewTimer("t", &c, &tu)
	check("timer", tm)
	check("iogam", NewIOGAM("io", tm.Outputs()))
}

func TestTimerBindKeepsMemory(t *testing.T) {
	var c0, t0, c1, t1 uint32 = 1, 2, 30, 40
	g := NewTimer("timer", &c0, &t0)
	mem := g.Outputs()[0].Mem
	g.Bind(&c1, &t1)
	g.Execute()
	if &g.Outputs()[0].Mem[0] != &mem[0] {
		t.Fatal("Bind moved the output memory")
	}
	if view[uint32](g.Outputs()[0].Mem)[0] != 30 || view[uint32](g.Outputs()[1].Mem)[0] != 40 {
		t.Error("Bind did not take effect")
	}
}
