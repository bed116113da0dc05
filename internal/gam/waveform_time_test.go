package gam

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/testenv"
)

// counters is a LinuxTimer Counter sequence with missed periods: 1, 2, 3,
// then jumps of 4, 1, 12, ... as an overloaded RT thread would see.
func counters(n int) []uint32 {
	c := []uint32{1, 2, 3}
	for i := 0; len(c) < n; i++ {
		c = append(c, c[len(c)-1]+uint32(1+(i*7)%13))
	}
	return c
}

func timeWave(t *testing.T, cfg WaveformConfig) (*Waveform, *uint32) {
	t.Helper()
	cfg.TimeInput = true
	w := mustWaveform(t, cfg)
	var now uint32
	w.BindTime(&now)
	return w, &now
}

// marte2Sine is MARTe2's WaveformSin for one cycle at time t seconds, with
// the element spacing inc: Amplitude·sin(2πF·t + Phase) + Offset.
func marte2Sine(a, f, ph, o, t, inc float64, n int) []float64 {
	w := 2.0 * math.Pi * f
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(a*math.Sin(float64(w*t)+ph)) + o
		t += inc
	}
	return out
}

// After missed periods the value is the one at the jumped Counter's Time,
// not at the count of executed cycles; the first cycle is zero.
func TestTimeInputFollowsCounter(t *testing.T) {
	const a, f, ph, o = 1.5, 7.3, 0.3, 0.25
	w, now := timeWave(t, WaveformConfig{Shape: Sine, Amplitude: a, Frequency: f, Phase: ph, Offset: o, Type: datasource.Float64, Elements: 1})
	out := view[float64](w.Outputs()[0].Mem)
	for i, c := range counters(200) {
		*now = c * 1000 // LinuxTimer Time at 1 kHz
		if err := w.Execute(); err != nil {
			t.Fatal(err)
		}
		want := 0.0
		if i > 0 {
			want = marte2Sine(a, f, ph, o, float64(c*1000)/1e6, 0, 1)[0]
		}
		if out[0] != want {
			t.Fatalf("cycle %d, Counter %d: %v, want %v", i, c, out[0], want)
		}
	}
}

// An array's elements are spaced by the time between the first two cycles
// over the element count, as MARTe2 computes it.
func TestTimeInputArraySpacing(t *testing.T) {
	w, now := timeWave(t, WaveformConfig{Shape: Sine, Amplitude: 2, Frequency: 50, Type: datasource.Float64, Elements: 4})
	out := view[float64](w.Outputs()[0].Mem)
	for _, tc := range []struct {
		time uint32
		want []float64
	}{
		{1000, []float64{0, 0, 0, 0}},
		{2000, marte2Sine(2, 50, 0, 0, 0.002, 0.00025, 4)},
		{9000, marte2Sine(2, 50, 0, 0, 0.009, 0.00025, 4)},
	} {
		*now = tc.time
		if err := w.Execute(); err != nil {
			t.Fatal(err)
		}
		for i := range out {
			if out[i] != tc.want[i] {
				t.Fatalf("time %d element %d: %v, want %v", tc.time, i, out[i], tc.want[i])
			}
		}
	}
}

// Integer outputs are truncated toward zero (C's conversion), then
// clamped.
func TestTimeInputTruncates(t *testing.T) {
	w, now := timeWave(t, WaveformConfig{Shape: Constant, Offset: -2.7, Type: datasource.Int16, Elements: 1})
	out := view[int16](w.Outputs()[0].Mem)
	for _, tm := range []uint32{10, 20} {
		*now = tm
		if err := w.Execute(); err != nil {
			t.Fatal(err)
		}
	}
	if out[0] != -2 {
		t.Errorf("int16 of -2.7: %d, want -2", out[0])
	}
	w, now = timeWave(t, WaveformConfig{Shape: Constant, Offset: 1e9, Type: datasource.Uint16, Elements: 1})
	for _, tm := range []uint32{10, 20} {
		*now = tm
		w.Execute()
	}
	if got := view[uint16](w.Outputs()[0].Mem)[0]; got != math.MaxUint16 {
		t.Errorf("uint16 of 1e9: %d, want %d", got, math.MaxUint16)
	}
}

// The 32-bit µs input wraps after 71.6 minutes; the waveform goes on.
func TestTimeInputUnwraps(t *testing.T) {
	w, now := timeWave(t, WaveformConfig{Shape: Ramp, Amplitude: 1, Type: datasource.Float64, Elements: 1})
	out := view[float64](w.Outputs()[0].Mem)
	for _, tm := range []uint32{math.MaxUint32 - 1999, math.MaxUint32 - 999, 0xFFFFFFFF, 999} {
		*now = tm
		if err := w.Execute(); err != nil {
			t.Fatal(err)
		}
	}
	if want := float64(1<<32+999) / 1e6; out[0] != want {
		t.Errorf("after the wrap: %v s, want %v", out[0], want)
	}
}

// The second cycle fails as MARTe2's does when the time did not advance
// or the frequency is above half the element rate; the outputs keep
// their zeros and the third cycle computes.
func TestTimeInputSecondCycleFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     float64
		t1    uint32
		want  error
		elems int
	}{
		{"still", 1, 1000, ErrTimeStill, 1},
		{"nyquist", 600, 2000, ErrNyquist, 1},
		{"nyquist-array", 2100, 2000, ErrNyquist, 4},
	} {
		w, now := timeWave(t, WaveformConfig{Shape: Sine, Amplitude: 1, Offset: 5, Frequency: tc.f, Type: datasource.Float32, Elements: tc.elems})
		out := view[float32](w.Outputs()[0].Mem)
		*now = 1000
		w.Execute()
		*now = tc.t1
		if err := w.Execute(); !errors.Is(err, tc.want) {
			t.Errorf("%s: second cycle %v, want %v", tc.name, err, tc.want)
		}
		if out[0] != 0 {
			t.Errorf("%s: output %v after the failed cycle, want 0", tc.name, out[0])
		}
		*now = 5000
		if err := w.Execute(); err != nil || out[0] == 0 {
			t.Errorf("%s: third cycle: %v, output %v", tc.name, err, out[0])
		}
	}
}

func TestTimeInputConfig(t *testing.T) {
	_, err := NewWaveform("w", WaveformConfig{Shape: Sine, Amplitude: 1, Frequency: 1, SamplingRate: 1000, Type: datasource.Float32, Elements: 4, TimeInput: true})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Parameter != "SamplingRate" {
		t.Errorf("SamplingRate with TimeInput: %v", err)
	}
	// No CyclePeriod is needed: the time comes from the input.
	if _, err := NewWaveform("w", WaveformConfig{Shape: Sine, Amplitude: 1, Frequency: 1, Type: datasource.Float32, Elements: 1, TimeInput: true}); err != nil {
		t.Errorf("TimeInput without CyclePeriod: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("BindTime without TimeInput did not panic")
		}
	}()
	mustWaveform(t, WaveformConfig{Shape: Sine, Amplitude: 1, Type: datasource.Float32, Elements: 1, CyclePeriod: 1}).BindTime(new(uint32))
}

func TestTimeInputNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	for _, shape := range allShapes {
		for _, typ := range allTypes {
			w, now := timeWave(t, WaveformConfig{Shape: shape, Amplitude: 3, Frequency: 50, Offset: 1, DutyCycle: 0.5, Seed: 1, Type: typ, Elements: 16})
			if n := testing.AllocsPerRun(100, func() { *now += 1000; sinkErr = w.Execute() }); n != 0 {
				t.Errorf("%v/%v: %v allocations per Execute", shape, typ, n)
			}
		}
	}
}

// The values match the C reference of MARTe2's WaveformSin compiled with
// the system compiler and libm, for the same Counter sequence with missed
// periods: float32 and the integer types bit for bit; float64 within two
// units in the last place of sin, scaled (Go's math.Sin and libm's sin
// may differ there).
func TestTimeInputMatchesC(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skipf("skipped: no C compiler: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "marte2_sine")
	if out, err := exec.Command(cc, "-O2", "-ffp-contract=off", "-o", bin, filepath.Join("testdata", "marte2_sine.c"), "-lm").CombinedOutput(); err != nil {
		t.Skipf("skipped: cc failed: %v\n%s", err, out)
	}
	cs := counters(20000)
	for _, p := range []struct {
		a, f, ph, o float64
		n           int
		unsigned    bool // compare uint16 (values ≥ 0), else int16
	}{
		{1.5, 7.3, 0.3, 0.25, 1, false},
		{16000, 50, 0, 16384, 4, true},
		{1000, 3.7, -1.2, 0, 1, false},
	} {
		var in strings.Builder
		for _, c := range cs {
			fmt.Fprintln(&in, c*1000)
		}
		cmd := exec.Command(bin, fmt.Sprint(p.a), fmt.Sprint(p.f), fmt.Sprint(p.ph), fmt.Sprint(p.o), fmt.Sprint(p.n))
		cmd.Stdin = strings.NewReader(in.String())
		ref, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstC(t, p.a, p.f, p.ph, p.o, p.n, p.unsigned, cs, ref)
	}
}

func checkAgainstC(t *testing.T, a, f, ph, o float64, n int, unsigned bool, cs []uint32, ref []byte) {
	t.Helper()
	cfg := WaveformConfig{Shape: Sine, Amplitude: a, Frequency: f, Phase: ph, Offset: o, Elements: n}
	gen := func(typ datasource.Type) (*Waveform, *uint32) { cfg.Type = typ; return timeWave(t, cfg) }
	w64, t64 := gen(datasource.Float64)
	w32, t32 := gen(datasource.Float32)
	wint, ti := gen(map[bool]datasource.Type{true: datasource.Uint16, false: datasource.Int16}[unsigned])
	sc := bufio.NewScanner(bytes.NewReader(ref))
	// Two ulps of sin, scaled by the amplitude, and one of the offset's
	// addition.
	tol := 2*math.Abs(a)*0x1p-52 + math.Abs(o)*0x1p-52
	differ := 0
	for i, c := range cs {
		if !sc.Scan() {
			t.Fatalf("reference ended at cycle %d", i)
		}
		*t64, *t32, *ti = c*1000, c*1000, c*1000
		w64.Execute()
		w32.Execute()
		wint.Execute()
		fs := strings.Fields(sc.Text())
		for e := 0; e < n; e++ {
			d, _ := strconv.ParseUint(fs[4*e], 16, 64)
			s, _ := strconv.ParseUint(fs[4*e+1], 16, 32)
			u, _ := strconv.ParseInt(fs[4*e+2], 10, 32)
			sg, _ := strconv.ParseInt(fs[4*e+3], 10, 32)
			g64 := view[float64](w64.Outputs()[0].Mem)[e]
			if diff := math.Abs(g64 - math.Float64frombits(d)); diff > tol {
				t.Fatalf("A=%v F=%v: cycle %d Counter %d element %d: float64 %v, C %v", a, f, i, c, e, g64, math.Float64frombits(d))
			} else if diff != 0 {
				differ++
			}
			if g := math.Float32bits(view[float32](w32.Outputs()[0].Mem)[e]); g != uint32(s) {
				t.Fatalf("A=%v F=%v: cycle %d Counter %d element %d: float32 %x, C %x", a, f, i, c, e, g, s)
			}
			var got, want int64
			if unsigned {
				got, want = int64(view[uint16](wint.Outputs()[0].Mem)[e]), u
			} else {
				got, want = int64(view[int16](wint.Outputs()[0].Mem)[e]), sg
			}
			if got != want {
				t.Fatalf("A=%v F=%v: cycle %d Counter %d element %d: integer %d, C %d", a, f, i, c, e, got, want)
			}
		}
	}
	t.Logf("A=%v F=%v Phase=%v Offset=%v, %d elements, %d cycles up to Counter %d: float32 and integers identical; float64 differs by ≤ 2 ulps of sin in %d of %d values",
		a, f, ph, o, n, len(cs), cs[len(cs)-1], differ, n*len(cs))
}
