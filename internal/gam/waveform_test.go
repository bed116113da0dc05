package gam

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/streamerd/streamerd/datasource"
)

var allTypes = []datasource.Type{
	datasource.Uint8, datasource.Int8, datasource.Uint16, datasource.Int16, datasource.Uint32,
	datasource.Int32, datasource.Uint64, datasource.Int64, datasource.Float32, datasource.Float64,
}

var allShapes = []Shape{Sine, Square, Triangle, Sawtooth, Ramp, Constant, Noise}

func mustWaveform(t testing.TB, cfg WaveformConfig) *Waveform {
	t.Helper()
	w, err := NewWaveform("w", cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// f64 returns the float64 output of w.
func f64(w *Waveform) []float64 { return view[float64](w.Outputs()[0].Mem) }

// run executes w n times and returns the concatenated float64 outputs.
func run(t testing.TB, w *Waveform, n int) []float64 {
	t.Helper()
	var all []float64
	for range n {
		if err := w.Execute(); err != nil {
			t.Fatal(err)
		}
		all = append(all, f64(w)...)
	}
	return all
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.17g, want %.17g (±%g)", what, got, want, tol)
	}
}

func TestSineArrayClosedForm(t *testing.T) {
	const sr, f, a, o, ph = 1e6, 1000.0, 2.0, 0.5, 0.3
	w := mustWaveform(t, WaveformConfig{Shape: Sine, Amplitude: a, Frequency: f, Offset: o, Phase: ph,
		SamplingRate: sr, Type: datasource.Float64, Elements: 1000, CyclePeriod: time.Millisecond})
	v := run(t, w, 3)
	for k, x := range v {
		near(t, "sample", x, o+a*math.Sin(2*math.Pi*float64(k)*f/sr+ph), 1e-12)
	}
}

func TestSineScalarCycleTime(t *testing.T) {
	const f, a, o, ph = 7.0, 3.0, -1.0, -2.0
	w := mustWaveform(t, WaveformConfig{Shape: Sine, Amplitude: a, Frequency: f, Offset: o, Phase: ph,
		Type: datasource.Float64, Elements: 1, CyclePeriod: time.Millisecond})
	for c, x := range run(t, w, 2000) {
		near(t, "cycle", x, o+a*math.Sin(2*math.Pi*f*float64(c)*1e-3+ph), 1e-12)
	}
}

// An array with SamplingRate 0 holds the cycle-time value in every element.
func TestArrayAtCycleTime(t *testing.T) {
	w := mustWaveform(t, WaveformConfig{Shape: Sine, Amplitude: 1, Frequency: 50,
		Type: datasource.Float64, Elements: 8, CyclePeriod: time.Millisecond})
	for c := range 100 {
		if err := w.Execute(); err != nil {
			t.Fatal(err)
		}
		want := math.Sin(2 * math.Pi * 50 * float64(c) * 1e-3)
		for _, x := range f64(w) {
			near(t, "element", x, want, 1e-12)
		}
	}
}

// With a dyadic step (8 Hz at 1024 Sps: 1/128 cycle per sample) every phase
// is exact, so the piecewise-linear shapes can be compared exactly.
func TestPiecewiseShapesExact(t *testing.T) {
	const a, o = 2.0, 1.0
	cases := []struct {
		shape Shape
		want  func(u float64) float64
	}{
		{Square, func(u float64) float64 {
			if u < 0.25 {
				return o + a
			}
			return o - a
		}},
		{Triangle, func(u float64) float64 {
			if u < 0.5 {
				return o + a*(4*u-1)
			}
			return o + a*(3-4*u)
		}},
		{Sawtooth, func(u float64) float64 { return o + a*(2*u-1) }},
	}
	for _, c := range cases {
		w := mustWaveform(t, WaveformConfig{Shape: c.shape, Amplitude: a, Frequency: 8, Offset: o, DutyCycle: 0.25,
			SamplingRate: 1024, Type: datasource.Float64, Elements: 100})
		for k, x := range run(t, w, 5) {
			u := float64(k%128) / 128
			if want := c.want(u); x != want {
				t.Errorf("%v: sample %d (u=%v) = %v, want %v", c.shape, k, u, x, want)
			}
		}
	}
	// The landmarks of the triangle and sawtooth.
	w := mustWaveform(t, WaveformConfig{Shape: Triangle, Amplitude: 1, Frequency: 8, SamplingRate: 1024, Type: datasource.Float64, Elements: 128})
	v := run(t, w, 1)
	if v[0] != -1 || v[32] != 0 || v[64] != 1 || v[96] != 0 {
		t.Errorf("triangle landmarks: %v %v %v %v, want -1 0 1 0", v[0], v[32], v[64], v[96])
	}
}

func TestSquareDutyAndPhase(t *testing.T) {
	// Phase π shifts by half a period: a 25 % square starts low and goes
	// high at u = 0.5 + 0.5 = 0 (mod 1), i.e. sample 64 of 128.
	w := mustWaveform(t, WaveformConfig{Shape: Square, Amplitude: 1, Frequency: 8, Phase: math.Pi, DutyCycle: 0.25,
		SamplingRate: 1024, Type: datasource.Float64, Elements: 128})
	v := run(t, w, 1)
	for k, x := range v {
		want := -1.0
		if k >= 64 && k < 96 {
			want = 1
		}
		if x != want {
			t.Fatalf("sample %d = %v, want %v", k, x, want)
		}
	}
	for _, d := range []float64{0, 1} {
		w := mustWaveform(t, WaveformConfig{Shape: Square, Amplitude: 1, Frequency: 8, DutyCycle: d,
			SamplingRate: 1024, Type: datasource.Float64, Elements: 128})
		want := 2*d - 1
		for k, x := range run(t, w, 1) {
			if x != want {
				t.Fatalf("duty %v: sample %d = %v, want %v", d, k, x, want)
			}
		}
	}
}

func TestRamp(t *testing.T) {
	w := mustWaveform(t, WaveformConfig{Shape: Ramp, Amplitude: 3, Offset: 1, SamplingRate: 1000,
		Type: datasource.Float64, Elements: 250})
	for k, x := range run(t, w, 4) {
		near(t, "ramp sample", x, 1+3*float64(k)/1000, 1e-12)
	}
	s := mustWaveform(t, WaveformConfig{Shape: Ramp, Amplitude: -0.5, Offset: 2, Type: datasource.Float64,
		Elements: 1, CyclePeriod: 250 * time.Microsecond})
	for c, x := range run(t, s, 100) {
		near(t, "ramp cycle", x, 2-0.5*float64(c)*250e-6, 1e-12)
	}
}

func TestConstant(t *testing.T) {
	w := mustWaveform(t, WaveformConfig{Shape: Constant, Amplitude: 9, Frequency: 3, Offset: -4.25,
		SamplingRate: 10, Type: datasource.Float64, Elements: 16})
	for _, x := range run(t, w, 3) {
		if x != -4.25 {
			t.Fatalf("constant = %v, want -4.25", x)
		}
	}
}

// Three cycles of a 1000-sample array equal one 3000-sample generation, bit
// for bit: the phase is a function of the absolute sample index.
func TestContinuousAcrossCycles(t *testing.T) {
	for _, shape := range allShapes {
		for _, typ := range []datasource.Type{datasource.Float64, datasource.Float32, datasource.Int16} {
			cfg := WaveformConfig{Shape: shape, Amplitude: 1000, Frequency: 1234.5, Offset: 3, Phase: 0.7, DutyCycle: 0.3,
				Seed: 42, SamplingRate: 1e6, Type: typ, Elements: 1000, CyclePeriod: time.Millisecond}
			w := mustWaveform(t, cfg)
			var three []byte
			for range 3 {
				w.Execute()
				three = append(three, w.Outputs()[0].Mem...)
			}
			cfg.Elements = 3000
			one := mustWaveform(t, cfg)
			one.Execute()
			if string(one.Outputs()[0].Mem) != string(three) {
				t.Errorf("%v %v: 3 cycles × 1000 differ from 1 × 3000", shape, typ)
			}
		}
	}
}

// exactPhase returns frac(k·step + phase0) computed in big-float arithmetic,
// where step is the float64 the generator uses.
func exactPhase(k uint64, step, phase0 float64) float64 {
	x := new(big.Float).SetPrec(256).SetUint64(k)
	x.Mul(x, new(big.Float).SetPrec(256).SetFloat64(step))
	x.Add(x, new(big.Float).SetPrec(256).SetFloat64(phase0))
	i, _ := x.Int(nil)
	x.Sub(x, new(big.Float).SetPrec(256).SetInt(i))
	f, _ := x.Float64()
	return f
}

// After 10^9 samples (and far beyond, past 2^32 and 2^53) the phase is still
// exact to a few ulps, so the value is as accurate as on the first cycle.
func TestPhaseStaysExact(t *testing.T) {
	const sr, f = 1e6, 1000.0
	for _, start := range []uint64{1e9, 1e9 + 7, 1 << 32, 1e12 + 3, 1<<53 + 5, 1<<63 + 999, math.MaxUint64 - 5000} {
		w := mustWaveform(t, WaveformConfig{Shape: Sine, Amplitude: 1, Frequency: f, Phase: 0.25,
			SamplingRate: sr, Type: datasource.Float64, Elements: 1000})
		w.next = start
		v := run(t, w, 1)
		step := f / sr
		for i, x := range v {
			k := start + uint64(i)
			u := exactPhase(k, step, w.phase0)
			near(t, "phase", w.phase(k), u, 1e-14)
			near(t, "value", x, math.Sin(2*math.Pi*u), 1e-13)
		}
	}
	// Against the ideal signal: at sample 10^9 + j, a 1 kHz sine sampled at
	// 1 MSps is at phase j/1000 exactly; the float64 rounding of the step
	// (1e-3 is not a binary fraction) is worth 2e-11 cycles by then.
	w := mustWaveform(t, WaveformConfig{Shape: Sine, Amplitude: 1, Frequency: f, SamplingRate: sr,
		Type: datasource.Float32, Elements: 1000})
	w.next = 1e9
	w.Execute()
	for j, x := range view[float32](w.Outputs()[0].Mem) {
		near(t, "float32 value at 1e9+j", float64(x), math.Sin(2*math.Pi*float64(j)/1000), 1e-6)
	}
	// A scalar after 10^9 cycles of 1 ms (11.6 days) at an awkward frequency.
	s := mustWaveform(t, WaveformConfig{Shape: Sine, Amplitude: 1, Frequency: 12.345678, Type: datasource.Float64,
		Elements: 1, CyclePeriod: time.Millisecond})
	s.next = 1e9
	for c := range uint64(10) {
		s.Execute()
		step := 12.345678 * 1e6 / 1e9
		near(t, "scalar at 1e9", f64(s)[0], math.Sin(2*math.Pi*exactPhase(1e9+c, step, 0)), 1e-13)
	}
}

func TestIntegerRoundAndClamp(t *testing.T) {
	cases := []struct {
		typ    datasource.Type
		offset float64
		want   any
	}{
		{datasource.Uint8, 300, uint8(255)},
		{datasource.Uint8, 255.4, uint8(255)},
		{datasource.Uint8, 255.5, uint8(255)},
		{datasource.Uint8, -5, uint8(0)},
		{datasource.Uint8, 2.5, uint8(3)},
		{datasource.Uint8, 2.49, uint8(2)},
		{datasource.Int8, 127.5, int8(127)},
		{datasource.Int8, -128.4, int8(-128)},
		{datasource.Int8, -128.6, int8(-128)},
		{datasource.Int8, -2.5, int8(-3)},
		{datasource.Uint16, 1e9, uint16(65535)},
		{datasource.Int16, -40000, int16(-32768)},
		{datasource.Int16, 32767.49, int16(32767)},
		{datasource.Uint32, 4294967295.4, uint32(4294967295)},
		{datasource.Uint32, 1e300, uint32(math.MaxUint32)},
		{datasource.Int32, -2147483648.5, int32(math.MinInt32)},
		{datasource.Int32, 2147483647, int32(math.MaxInt32)},
		{datasource.Uint64, 1e20, uint64(math.MaxUint64)},
		{datasource.Uint64, 1 << 64, uint64(math.MaxUint64)},
		{datasource.Uint64, 1 << 63, uint64(1 << 63)},
		{datasource.Uint64, -1, uint64(0)},
		{datasource.Int64, 1 << 63, int64(math.MaxInt64)},
		{datasource.Int64, -(1 << 63), int64(math.MinInt64)},
		{datasource.Int64, -1e30, int64(math.MinInt64)},
		{datasource.Int64, 1 << 62, int64(1 << 62)},
		{datasource.Float32, 1e40, float32(math.Inf(1))},
		{datasource.Float32, 0.1, float32(0.1)},
	}
	for _, c := range cases {
		w := mustWaveform(t, WaveformConfig{Shape: Constant, Offset: c.offset, Type: c.typ, Elements: 3})
		w.Execute()
		got := reflect.New(reflect.TypeOf(c.want)) // a *T for the T of want
		if err := binary.Read(bytes.NewReader(w.Outputs()[0].Mem[2*c.typ.Size():]), binary.NativeEndian, got.Interface()); err != nil {
			t.Fatal(err)
		}
		if got.Elem().Interface() != c.want {
			t.Errorf("%v ← %v: got %v, want %v", c.typ, c.offset, got.Elem(), c.want)
		}
	}
	// A sine wider than int16 clips at both ends and is exact in between.
	w := mustWaveform(t, WaveformConfig{Shape: Sine, Amplitude: 40000, Frequency: 8, SamplingRate: 1024,
		Type: datasource.Int16, Elements: 128})
	w.Execute()
	v := view[int16](w.Outputs()[0].Mem)
	if v[32] != math.MaxInt16 || v[96] != math.MinInt16 || v[0] != 0 {
		t.Errorf("int16 sine: v[0]=%d v[32]=%d v[96]=%d, want 0 32767 -32768", v[0], v[32], v[96])
	}
	for k, x := range v {
		want := math.Max(-32768, math.Min(32767, math.Round(40000*math.Sin(2*math.Pi*float64(k)/128))))
		if float64(x) != want {
			t.Errorf("int16 sine sample %d = %d, want %v", k, x, want)
		}
	}
}

func TestNoise(t *testing.T) {
	const a, o, n = 2.0, 10.0, 200000
	cfg := WaveformConfig{Shape: Noise, Amplitude: a, Offset: o, Seed: 1234, Type: datasource.Float64, Elements: 1000}
	v := run(t, mustWaveform(t, cfg), n/1000)
	again := run(t, mustWaveform(t, cfg), n/1000)
	cfg.Seed++
	other := run(t, mustWaveform(t, cfg), n/1000)
	var sum, sq float64
	same := 0
	for i, x := range v {
		if x < o-a || x > o+a {
			t.Fatalf("sample %d = %v outside [%v, %v]", i, x, o-a, o+a)
		}
		if x != again[i] {
			t.Fatalf("same seed: sample %d differs: %v vs %v", i, x, again[i])
		}
		if x == other[i] {
			same++
		}
		sum += x
		sq += (x - o) * (x - o)
	}
	if same > 10 {
		t.Errorf("another seed repeats %d of %d samples", same, n)
	}
	// Uniform on [o-a, o+a]: variance a²/3, so the mean's σ is a/√(3n).
	mean, vr := sum/n, sq/n
	near(t, "mean", mean, o, 5*a/math.Sqrt(3*n))
	near(t, "variance", vr, a*a/3, 0.02*a*a/3)
	// Scalar noise is a fresh value every cycle, and the same sequence.
	s := mustWaveform(t, WaveformConfig{Shape: Noise, Amplitude: a, Offset: o, Seed: 1234, Type: datasource.Float64, Elements: 1})
	for i, x := range run(t, s, 100) {
		if x != v[i] {
			t.Fatalf("scalar noise cycle %d = %v, want %v", i, x, v[i])
		}
	}
	// Integer noise stays in its integer bounds.
	iw := mustWaveform(t, WaveformConfig{Shape: Noise, Amplitude: 100, Offset: 50, Seed: 7, Type: datasource.Int8, Elements: 4096})
	iw.Execute()
	lo, hi := int8(127), int8(-128)
	for _, x := range view[int8](iw.Outputs()[0].Mem) {
		lo, hi = min(lo, x), max(hi, x)
	}
	if lo != -50 || hi != 127 {
		t.Errorf("int8 noise spans [%d, %d], want [-50, 127] (clamped)", lo, hi)
	}
}

func TestOutputLayout(t *testing.T) {
	for _, typ := range allTypes {
		w := mustWaveform(t, WaveformConfig{Shape: Sine, Amplitude: 1, Frequency: 1, SamplingRate: 100, Type: typ, Elements: 5})
		o := w.Outputs()
		if len(o) != 1 || o[0].Name != "w" || o[0].Type != typ || o[0].Elements != 5 || len(o[0].Mem) != 5*typ.Size() {
			t.Fatalf("%v: outputs %+v", typ, o)
		}
		if p := uintptr(unsafe.Pointer(unsafe.SliceData(o[0].Mem))); p%uintptr(typ.Size()) != 0 {
			t.Errorf("%v: output at %#x is not aligned", typ, p)
		}
		before := unsafe.SliceData(o[0].Mem)
		w.Execute()
		if unsafe.SliceData(w.Outputs()[0].Mem) != before {
			t.Errorf("%v: output moved", typ)
		}
	}
}

func TestWaveformConfigErrors(t *testing.T) {
	good := WaveformConfig{Shape: Sine, Amplitude: 1, Frequency: 10, SamplingRate: 1000, Type: datasource.Float32, Elements: 10, CyclePeriod: time.Millisecond}
	if _, err := NewWaveform("ok", good); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		param string
		mod   func(*WaveformConfig)
	}{
		{"Shape", func(c *WaveformConfig) { c.Shape = numShapes }},
		{"Amplitude", func(c *WaveformConfig) { c.Amplitude = math.NaN() }},
		{"Offset", func(c *WaveformConfig) { c.Offset = math.Inf(-1) }},
		{"Phase", func(c *WaveformConfig) { c.Phase = math.Inf(1) }},
		{"Frequency", func(c *WaveformConfig) { c.Frequency = -1 }},
		{"Frequency", func(c *WaveformConfig) { c.Frequency = math.Inf(1) }},
		{"Frequency", func(c *WaveformConfig) { c.Frequency = 1e300; c.SamplingRate = 1e-5 }},
		{"DutyCycle", func(c *WaveformConfig) { c.DutyCycle = 1.5 }},
		{"DutyCycle", func(c *WaveformConfig) { c.DutyCycle = -0.1 }},
		{"SamplingRate", func(c *WaveformConfig) { c.SamplingRate = -1 }},
		{"SamplingRate", func(c *WaveformConfig) { c.SamplingRate = 1e-300 }},
		{"Elements", func(c *WaveformConfig) { c.Elements = 0 }},
		{"Elements", func(c *WaveformConfig) { c.Elements = datasource.MaxElements + 1 }},
		{"Type", func(c *WaveformConfig) { c.Type = 10 }},
		{"CyclePeriod", func(c *WaveformConfig) { c.CyclePeriod = -1 }},
		{"CyclePeriod", func(c *WaveformConfig) { c.Elements = 1; c.CyclePeriod = 0 }},
		{"CyclePeriod", func(c *WaveformConfig) { c.SamplingRate = 0; c.CyclePeriod = 0 }},
		{"CyclePeriod", func(c *WaveformConfig) { c.Shape = Ramp; c.Elements = 1; c.CyclePeriod = 0 }},
	}
	for _, c := range cases {
		cfg := good
		c.mod(&cfg)
		_, err := NewWaveform("gen1", cfg)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Parameter != c.param || ce.GAM != "gen1" {
			t.Errorf("%s: got %v, want a ConfigError on %s", c.param, err, c.param)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, `gam "gen1"`) || !strings.Contains(msg, c.param) {
			t.Errorf("%s: message %q does not name the GAM and parameter", c.param, msg)
		}
	}
	// No CyclePeriod is needed where time does not matter.
	for _, cfg := range []WaveformConfig{
		{Shape: Constant, Type: datasource.Uint8, Elements: 1},
		{Shape: Noise, Amplitude: 1, Type: datasource.Uint8, Elements: 1},
		{Shape: Sine, Frequency: 0, Phase: 1, Amplitude: 1, Type: datasource.Uint8, Elements: 1},
		{Shape: Sine, Frequency: 5, SamplingRate: 100, Amplitude: 1, Type: datasource.Uint8, Elements: 2},
	} {
		if _, err := NewWaveform("x", cfg); err != nil {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
	// Several broken rules are all reported.
	_, err := NewWaveform("", WaveformConfig{Shape: 99, Elements: -1, Type: 77})
	for _, p := range []string{"Name", "Shape", "Elements", "Type"} {
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("joined error %v lacks %s", err, p)
		}
	}
}

func TestParseShape(t *testing.T) {
	for _, s := range allShapes {
		got, err := ParseShape(s.String())
		if err != nil || got != s {
			t.Errorf("ParseShape(%q) = %v, %v", s.String(), got, err)
		}
		b, err := s.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var u Shape
		if err := u.UnmarshalText([]byte(strings.ToUpper(string(b)))); err != nil || u != s {
			t.Errorf("UnmarshalText(%q) = %v, %v", strings.ToUpper(string(b)), u, err)
		}
	}
	if _, err := ParseShape("sin"); err == nil || !strings.Contains(err.Error(), "sawtooth") {
		t.Errorf("ParseShape(sin) error %v does not list the shapes", err)
	}
	if _, err := Shape(200).MarshalText(); err == nil {
		t.Error("MarshalText of an invalid shape succeeded")
	}
}

func FuzzParseShape(f *testing.F) {
	for _, s := range allShapes {
		f.Add(s.String())
	}
	f.Add("Triangle")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShape(s)
		if err != nil {
			return
		}
		if !sh.Valid() || !strings.EqualFold(sh.String(), s) {
			t.Fatalf("ParseShape(%q) = %v", s, sh)
		}
	})
}

// FuzzWaveform builds waveforms from arbitrary settings: NewWaveform either
// rejects them or yields a GAM whose bounded shapes stay within
// [Offset-|A|, Offset+|A|] and which never produces NaN.
func FuzzWaveform(f *testing.F) {
	f.Add(uint8(Sine), 1.0, 1000.0, 0.0, 0.0, 0.5, uint64(1), 1e6, uint8(datasource.Float64), uint16(1000), int64(time.Millisecond))
	f.Add(uint8(Square), 5.0, 3.0, 1.0, 2.0, 0.1, uint64(0), 0.0, uint8(datasource.Float64), uint16(1), int64(time.Microsecond))
	f.Add(uint8(Noise), 1e300, 0.0, -1e300, 0.0, 0.0, uint64(9), 0.0, uint8(datasource.Float64), uint16(7), int64(0))
	f.Add(uint8(Ramp), 1e10, 0.0, 0.0, 0.0, 0.0, uint64(0), 1e-6, uint8(datasource.Int64), uint16(3), int64(0))
	// The rotated phasor drifted past |sin| = 1: element 50 was -5.000000000000156 in [-5, 121].
	f.Add(uint8(Sine), -63.0, 5000.0, 58.0, 0.0, 0.5, uint64(1), 1e6, uint8(datasource.Float64), uint16(970), int64(time.Millisecond))
	f.Fuzz(func(t *testing.T, shape uint8, a, fr, o, ph, duty float64, seed uint64, sr float64, typ uint8, n uint16, period int64) {
		cfg := WaveformConfig{Shape: Shape(shape), Amplitude: a, Frequency: fr, Offset: o, Phase: ph, DutyCycle: duty,
			Seed: seed, SamplingRate: sr, Type: datasource.Type(typ), Elements: int(n), CyclePeriod: time.Duration(period)}
		w, err := NewWaveform("fz", cfg)
		if err != nil {
			return
		}
		if cfg.Type != datasource.Float64 {
			for range 2 {
				w.Execute()
			}
			return
		}
		bounded := cfg.Shape != Ramp
		lo, hi := o-math.Abs(a), o+math.Abs(a)
		tol := 4 * (math.Abs(o) + math.Abs(a)) * 0x1p-52
		for range 2 {
			w.Execute()
			for i, x := range f64(w) {
				if math.IsNaN(x) {
					t.Fatalf("%+v: element %d is NaN", cfg, i)
				}
				if bounded && !math.IsInf(lo, 0) && !math.IsInf(hi, 0) && (x < lo-tol || x > hi+tol) {
					t.Fatalf("%+v: element %d = %v outside [%v, %v]", cfg, i, x, lo, hi)
				}
			}
		}
	})
}

// The incremental generation between anchors (phase additions, phasor
// rotation) stays within a few ulps of the exact value, at awkward
// frequencies and far into the stream.
func TestArrayIncrementalAccuracy(t *testing.T) {
	for _, f := range []float64{1000, 123456.789, 499999.9, 0.001, 3.3} {
		for _, shape := range []Shape{Sine, Sawtooth} {
			w := mustWaveform(t, WaveformConfig{Shape: shape, Amplitude: 1, Frequency: f, Phase: 1.1,
				SamplingRate: 1e6, Type: datasource.Float64, Elements: 1000})
			w.next = 1e12 + 17
			for range 5 {
				k0 := w.next
				w.Execute()
				for i, x := range f64(w) {
					u := exactPhase(k0+uint64(i), f/1e6, w.phase0)
					want := math.Sin(2 * math.Pi * u)
					if shape == Sawtooth {
						want = 2*u - 1
						if math.Abs(x-want) > 1 { // at the wrap, either side is right
							want = -want
						}
					}
					near(t, shape.String(), x, want, 1e-13)
				}
			}
		}
	}
}
