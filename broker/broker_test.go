package broker

import (
	"errors"
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
	sigs    []datasource.Signal
	mem     []byte
	offsets []int
	syncs   int
	latest  []byte
}

func (d *memoryDataSource) Name() string                 { return "mem" }
func (d *memoryDataSource) Signals() []datasource.Signal { return d.sigs }
func (d *memoryDataSource) AllocateMemory() error {
	d.offsets = make([]int, len(d.sigs)+1)
	for i := range d.sigs {
		d.offsets[i+1] = d.offsets[i] + d.sigs[i].ByteSize()
	}
	d.mem = make([]byte, d.offsets[len(d.sigs)])
	d.latest = make([]byte, len(d.mem))
	return nil
}
func (d *memoryDataSource) GetSignalMemoryBuffer(i int) ([]byte, error) {
	if d.mem == nil {
		return nil, datasource.ErrNotAllocated
	}
	return d.mem[d.offsets[i]:d.offsets[i+1]], nil
}
func (d *memoryDataSource) PrepareNextState() error { return nil }
func (d *memoryDataSource) Synchronise() error      { d.syncs++; copy(d.latest, d.mem); return nil }
func (d *memoryDataSource) Close() error            { return nil }

func newDS(t testing.TB) *memoryDataSource {
	d := unallocated()
	d.AllocateMemory()
	return d
}

func unallocated() *memoryDataSource {
	return &memoryDataSource{sigs: []datasource.Signal{
		{Name: "Counter", Type: datasource.Uint32},
		{Name: "Trigger", Type: datasource.Uint8},
		{Name: "Wave", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 4},
		{Name: "Held", Type: datasource.Int16},
		{Name: "Label", Type: datasource.Char8, NumberOfDimensions: 1, NumberOfElements: 8},
	}}
}

func TestExecuteCopiesThenSynchronises(t *testing.T) {
	d := newDS(t)
	counter := []uint32{0}
	trig := []uint8{0}
	wave := make([]float32, 4)
	b, err := NewMemoryMapSynchronisedOutputBroker(d, []Output{
		Bind("Wave", wave),
		Bind("Counter", counter),
		Bind("Trigger", trig),
	})
	if err != nil {
		t.Fatal(err)
	}
	viewOf[int16](testenv.Must(d.GetSignalMemoryBuffer(3)))[0] = -5
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
		if got := viewOf[uint32](d.latest[0:4])[0]; got != uint32(i) {
			t.Errorf("counter %d", got)
		}
		if d.latest[4] != uint8(i%2) {
			t.Errorf("trigger %d", d.latest[4])
		}
		w := viewOf[float32](d.latest[5:21])
		if w[3] != float32(i*10+3) {
			t.Errorf("wave %v", w)
		}
		if got := viewOf[int16](d.latest[21:23])[0]; got != -5 {
			t.Errorf("unfed signal changed: %d", got)
		}
	}
}

// TestMisuseZeroBroker: a broker not made by its constructor returns an
// error from Execute, as a nil one does.
func TestMisuseZeroBroker(t *testing.T) {
	var zero MemoryMapSynchronisedOutputBroker
	var nilB *MemoryMapSynchronisedOutputBroker
	for _, b := range []*MemoryMapSynchronisedOutputBroker{&zero, nilB} {
		if err := b.Execute(); err == nil {
			t.Errorf("Execute on %#v: no error", b)
		}
	}
}

// TestMisuseBind: every output a broker cannot copy faithfully (an
// unknown name, a wrong element type or count, a second output for one
// signal) and every unusable datasource is refused with an error naming
// the signal, what it declares and what was given; nothing panics.
func TestMisuseBind(t *testing.T) {
	type volts float32
	cases := []struct {
		name    string
		ds      datasource.DataSource
		outputs []Output
		want    error  // errors.Is, or errAny
		text    string // in the message
	}{
		{"unknown name", newDS(t), []Output{Bind("Nope", []uint32{0})}, datasource.ErrUnknownSignal,
			`broker for datasource "mem": output "Nope": no such signal (its signals: Counter, Trigger, Wave, Held, Label)`},
		{"the zero Output", newDS(t), []Output{{}}, datasource.ErrUnknownSignal, `output "": no such signal`},
		{"wrong type", newDS(t), []Output{Bind("Counter", []float32{0})}, datasource.ErrSignalMismatch,
			`signal "Counter" is uint32[1], the output bound to it is []float32 of 1 element`},
		{"wrong signedness", newDS(t), []Output{Bind("Held", []uint16{0})}, datasource.ErrSignalMismatch,
			`signal "Held" is int16[1], the output bound to it is []uint16 of 1 element`},
		{"too short", newDS(t), []Output{Bind("Wave", make([]float32, 3))}, datasource.ErrSignalMismatch,
			`signal "Wave" is float32[4], the output bound to it is []float32 of 3 elements`},
		{"too long", newDS(t), []Output{Bind("Wave", make([]volts, 5))}, datasource.ErrSignalMismatch,
			`signal "Wave" is float32[4], the output bound to it is []float32 of 5 elements`},
		{"nil slice", newDS(t), []Output{Bind[uint32]("Counter", nil)}, datasource.ErrSignalMismatch,
			`the output bound to it is []uint32 of 0 elements`},
		{"bytes of the wrong length", newDS(t), []Output{BindBytes("Held", datasource.Int16, make([]byte, 3))}, datasource.ErrSignalMismatch,
			`signal "Held" is int16[1], the output bound to it is 3 bytes declared int16`},
		{"bytes of the wrong type", newDS(t), []Output{BindBytes("Counter", datasource.Float32, make([]byte, 4))}, datasource.ErrSignalMismatch,
			`signal "Counter" is uint32[1], the output bound to it is 4 bytes declared float32`},
		{"bytes of no type", newDS(t), []Output{BindBytes("Counter", datasource.Type(99), make([]byte, 4))}, datasource.ErrSignalMismatch,
			`4 bytes declared Type(99)`},
		{"text as uint8", newDS(t), []Output{Bind("Label", make([]uint8, 8))}, datasource.ErrSignalMismatch,
			`signal "Label" is char8[8], the output bound to it is []uint8 of 8 elements: element type or count differs from the signal's (text: bind it with BindBytes(signal, datasource.Char8, b))`},
		{"one signal fed twice", newDS(t), []Output{Bind("Counter", []uint32{0}), Bind("Counter", []uint32{0})}, errAny,
			`signal "Counter" is fed by more than one output`},
		{"nil datasource", nil, []Output{Bind("Counter", []uint32{0})}, errAny, `broker: nil datasource`},
		{"datasource not allocated", unallocated(), []Output{Bind("Counter", []uint32{0})}, datasource.ErrNotAllocated,
			`broker for datasource "mem": signal memory not allocated`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panicked: %v", r)
				}
			}()
			b, err := NewMemoryMapSynchronisedOutputBroker(c.ds, c.outputs)
			switch {
			case err == nil:
				t.Fatal("no error")
			case b != nil:
				t.Error("a broker beside the error")
			case c.want != errAny && !errors.Is(err, c.want):
				t.Errorf("%v, want %v", err, c.want)
			case !strings.Contains(err.Error(), c.text):
				t.Errorf("%q lacks %q", err, c.text)
			}
			if err := b.Execute(); err == nil {
				t.Error("Execute on the nil broker: no error")
			}
		})
	}
	// Every broken rule at once, each named.
	_, err := NewMemoryMapSynchronisedOutputBroker(newDS(t), []Output{Bind("Nope", []uint8{0}), Bind("Counter", []int32{0}), Bind("Wave", []float32{0})})
	for _, w := range []string{`"Nope"`, `"Counter" is uint32[1]`, `"Wave" is float32[4]`} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("%v lacks %s", err, w)
		}
	}
}

var errAny = errors.New("any error")

// TestBindNamedTypesAndText: a slice of a named numeric type binds to the
// signal of its underlying type, and text to a char8 signal through
// BindBytes; the values arrive as written.
func TestBindNamedTypesAndText(t *testing.T) {
	type volts float32
	d := newDS(t)
	wave := []volts{1.5, -2, 3, 4}
	label := make([]byte, 8)
	copy(label, "shot 42")
	b, err := NewMemoryMapSynchronisedOutputBroker(d, []Output{Bind("Wave", wave), BindBytes("Label", datasource.Char8, label)})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Execute(); err != nil {
		t.Fatal(err)
	}
	if got := viewOf[float32](d.latest[5:21]); got[0] != 1.5 || got[1] != -2 {
		t.Errorf("wave %v", got)
	}
	if got := string(d.latest[23:30]); got != "shot 42" {
		t.Errorf("label %q", got)
	}
}

func TestExecuteNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	d := newDS(t)
	counter := []uint32{0}
	wave := make([]float32, 4)
	b, err := NewMemoryMapSynchronisedOutputBroker(d, []Output{Bind("Counter", counter), Bind("Wave", wave)})
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(1000, func() { counter[0]++; _ = b.Execute() }); n != 0 {
		t.Errorf("Execute: %v allocs", n)
	}
}
