package scope

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
)

// appSigs are signals like configs/app.toml's: a counter and its copy, a
// time stamp (another's time signal), one sine written four times
// quantised and once raw, a sawtooth as three integer types, a gate, and
// two arrays.
var appSigs = []Signal{
	{Name: "Counter", Elements: 1, Trace: true, size: 4},
	{Name: "Time", Unit: "us", Elements: 1, Trace: true, size: 4, timeOf: true},
	{Name: "CounterCopy", Elements: 1, Trace: true, size: 4},
	{Name: "I8", Elements: 1, Trace: true, size: 1},
	{Name: "I64", Elements: 1, Trace: true, size: 8},
	{Name: "I16", Elements: 1, Trace: true, size: 2},
	{Name: "VoltageU8", Unit: "V", Elements: 1, Trace: true, float: true, size: 4, step: 20.0 / 255},
	{Name: "VoltageI16", Unit: "V", Elements: 1, Trace: true, float: true, size: 8, step: 20.0 / 65535},
	{Name: "VoltageRaw", Unit: "V", Elements: 1, Trace: true, float: true, size: 8},
	{Name: "VoltageF32", Unit: "V", Elements: 1, Trace: true, float: true, size: 4},
	{Name: "Gate", Elements: 1, Trace: true, float: true, size: 4},
	{Name: "Ch1", Unit: "V", Elements: 10, Trace: true, float: true, size: 4, Clock: 1},
	{Name: "Grid", Elements: 12, WaveX: "index", float: true, size: 8},
}

// appUpdate is update k of appSigs, at 1 kHz.
func appUpdate(k int) fakeUpdate {
	t := float64(k) / 1000
	sine := 8 * math.Sin(2*math.Pi*10*t)
	saw := math.Trunc(200*(t-math.Floor(t)) - 100)
	q := func(v, step float64) float64 { return math.Round(v/step) * step }
	ch, grid := make([]float64, 10), make([]float64, 12)
	cht := make([]float64, 10)
	for i := range ch {
		ch[i], cht[i] = math.Sin(float64(k*10+i)), t+float64(i)*1e-4
	}
	for i := range grid {
		grid[i] = float64(i)
	}
	scalars := []float64{float64(k + 1), float64(k) * 1000, float64(k + 1), saw, saw, saw,
		q(sine, 20.0/255), q(sine, 20.0/65535), sine, float64(float32(sine)), float64(k / 50 % 2)}
	u := fakeUpdate{}
	for _, v := range scalars {
		u.vals = append(u.vals, []float64{v})
		u.times = append(u.times, []float64{t})
	}
	u.vals = append(u.vals, ch, grid)
	u.times = append(u.times, cht, slices.Repeat([]float64{t}, 12))
	return u
}

// metaOf returns the hub's meta message.
func metaOf(t *testing.T, h *Hub) metaMsg {
	t.Helper()
	var m metaMsg
	if err := json.Unmarshal(h.metaJSON(), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFirstViewDistinct: after the first updates, the copies of one value
// are noted and the most exact of them is the one shown; counters and
// time signals are left out; floats come first, within the bounds on
// traces and plots.
func TestFirstViewDistinct(t *testing.T) {
	h := NewHub(Limits{}, quietLog())
	h.Configure(Info{}, appSigs)
	ver := h.metaVer.Load()
	if m := metaOf(t, h); !m.Choosing || m.FirstView != nil {
		t.Fatalf("before any update: choosing %v, first view %v", m.Choosing, m.FirstView)
	}
	for k := range probeUpdates {
		h.push(appUpdate(k), k == 0)
	}
	m := metaOf(t, h)
	if m.Choosing || h.metaVer.Load() == ver {
		t.Fatal("no new meta message after the first updates")
	}
	notes := map[string]string{}
	for _, s := range m.Signals {
		switch {
		case s.CopyOf != "":
			notes[s.Name] = "= " + s.CopyOf
		case s.Counter:
			notes[s.Name] = "counter"
		}
	}
	want := map[string]string{
		"Counter": "counter", "Time": "counter", "CounterCopy": "= Counter", "I8": "= I64", "I16": "= I64",
		"VoltageU8": "= VoltageRaw", "VoltageI16": "= VoltageRaw", "VoltageF32": "= VoltageRaw",
	}
	if !mapsEqual(notes, want) {
		t.Errorf("notes %v, want %v", notes, want)
	}
	var got []string
	for _, f := range m.FirstView {
		got = append(got, m.Signals[f.Sig].Name+":"+f.Kind)
	}
	if w := []string{"I64:trace", "VoltageRaw:trace", "Gate:trace", "Ch1:trace", "Grid:wave"}; !slices.Equal(got, w) {
		t.Errorf("first view %v, want %v", got, w)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestFirstViewBounds: many distinct floats of many units fill at most
// firstViewTraces traces in firstViewPlots plots, floats before integers.
func TestFirstViewBounds(t *testing.T) {
	var sigs []Signal
	for i := range 20 {
		sigs = append(sigs, Signal{Name: "F" + string(rune('a'+i)), Unit: []string{"V", "A", "deg", "K"}[i%4], Elements: 1, Trace: true, float: true, size: 8},
			Signal{Name: "I" + string(rune('a'+i)), Unit: "V", Elements: 1, Trace: true, size: 4})
	}
	fv := chooseFirstView(sigs)
	units := map[string]bool{}
	for _, f := range fv {
		s := sigs[f.Sig]
		units[s.Unit] = true
		if !s.float {
			t.Errorf("%s, an integer, before the floats that fit", s.Name)
		}
	}
	if len(fv) != firstViewTraces || len(units) != firstViewPlots {
		t.Errorf("%d traces in %d plots", len(fv), len(units))
	}
}

// TestFirstViewWithoutUpdates: a stream that sends nothing still gets a
// first view, from the signal list alone, once probeMaxWait has passed.
func TestFirstViewWithoutUpdates(t *testing.T) {
	h := NewHub(Limits{}, quietLog())
	h.Configure(Info{}, appSigs)
	start := h.probe.start
	h.tick(start.Add(probeMaxWait / 2))
	if m := metaOf(t, h); !m.Choosing {
		t.Fatal("chose before probeMaxWait")
	}
	h.tick(start.Add(probeMaxWait))
	m := metaOf(t, h)
	if m.Choosing || len(m.FirstView) == 0 {
		t.Fatalf("choosing %v, first view %v", m.Choosing, m.FirstView)
	}
	for _, f := range m.FirstView {
		if s := m.Signals[f.Sig]; s.Name == "Time" || s.CopyOf != "" || s.Counter {
			t.Errorf("first view has %+v", s)
		}
	}
}

// TestProbeBounded: the comparison is over scalars of one unit and clock,
// allocates nothing per update, and ends after probeUpdates updates even
// when every signal starts equal (the most pairs).
func TestProbeBounded(t *testing.T) {
	const n = DefaultMaxSignals
	sigs := make([]Signal, n)
	u := fakeUpdate{vals: make([][]float64, n), times: make([][]float64, n)}
	for i := range sigs {
		sigs[i] = Signal{Name: "S" + string(rune(0x100+i)), Elements: 1, Trace: true, float: true, size: 8}
		u.vals[i], u.times[i] = []float64{0}, []float64{0}
	}
	h := NewHub(Limits{}, quietLog())
	h.Configure(Info{}, sigs)
	k := 0
	step := func() {
		k++
		for i := range u.vals {
			u.vals[i][0], u.times[i][0] = float64(i*(k-1)), float64(k)/1000 // all 0 at first
		}
		h.push(&u, false)
	}
	step()
	if !testenv.RaceEnabled {
		if a := testing.AllocsPerRun(probeUpdates/2, step); a != 0 {
			t.Errorf("%v allocations per update while comparing", a)
		}
	}
	for range probeUpdates {
		step()
	}
	m := metaOf(t, h)
	if m.Choosing {
		t.Fatal("still choosing")
	}
	for _, s := range m.Signals {
		if s.CopyOf != "" {
			t.Fatalf("%s noted a copy of %s", s.Name, s.CopyOf)
		}
	}
}

// TestProbeAfterWait: a slow stream is compared over the updates of
// probeWait, not probeUpdates, if there are probeMin of them.
func TestProbeAfterWait(t *testing.T) {
	h := NewHub(Limits{}, quietLog())
	h.Configure(Info{}, appSigs)
	for k := range probeMin - 1 {
		h.push(appUpdate(k), false)
	}
	h.tick(time.Now().Add(probeWait))
	if metaOf(t, h).Choosing != true {
		t.Fatalf("chose after %d updates", probeMin-1)
	}
	h.push(appUpdate(probeMin), false)
	if metaOf(t, h).Choosing != true {
		t.Fatalf("chose after %d updates, before probeWait", probeMin)
	}
	h.tick(time.Now().Add(probeWait))
	if m := metaOf(t, h); m.Choosing || len(m.FirstView) == 0 {
		t.Fatalf("choosing %v, first view %v", m.Choosing, m.FirstView)
	}
}
