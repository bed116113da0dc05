package broker

import (
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
	return d.mem[d.offsets[i]:d.offsets[i+1]], nil
}
func (d *memoryDataSource) PrepareNextState() error { return nil }
func (d *memoryDataSource) Synchronise() error      { d.syncs++; copy(d.latest, d.mem); return nil }
func (d *memoryDataSource) Close() error            { return nil }

func newDS(t testing.TB) *memoryDataSource {
	d := &memoryDataSource{sigs: []datasource.Signal{
		{Name: "Counter", Type: datasource.Uint32},
		{Name: "Trigger", Type: datasource.Uint8},
		{Name: "Wave", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 4},
		{Name: "Held", Type: datasource.Int16},
	}}
	d.AllocateMemory()
	return d
}

func TestExecuteCopiesThenSynchronises(t *testing.T) {
	d := newDS(t)
	counter := []uint32{0}
	trig := []uint8{0}
	wave := make([]float32, 4)
	b, err := NewMemoryMapSynchronisedOutputBroker(d, []Output{
		{Signal: "Wave", Src: bytesOf(wave)},
		{Signal: "Counter", Src: bytesOf(counter)},
		{Signal: "Trigger", Src: bytesOf(trig)},
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
	b, err := NewMemoryMapSynchronisedOutputBroker(d, []Output{{Signal: "Counter", Src: bytesOf(counter)}, {Signal: "Wave", Src: bytesOf(wave)}})
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(1000, func() { counter[0]++; _ = b.Execute() }); n != 0 {
		t.Errorf("Execute: %v allocs", n)
	}
}
