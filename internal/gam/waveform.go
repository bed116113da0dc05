package gam

import (
	"errors"
	"math"
	"time"
	"unsafe"

	"github.com/streamerd/streamerd/datasource"
)

// DefaultDutyCycle is the DutyCycle a config loader should use when the key
// is absent; the zero value 0 makes a square wave that is always low.
const DefaultDutyCycle = 0.5

// minSamplingRate bounds SamplingRate away from zero so that the time of any
// sample index, k/SamplingRate seconds, stays finite.
const minSamplingRate = 1e-6

// WaveformConfig configures a Waveform GAM.
//
// Time base. A Waveform never reads a clock: its time is an exact count.
//   - An array (Elements > 1) with SamplingRate > 0 holds consecutive samples
//     spaced 1/SamplingRate s. Sample k (counted from 0 at the first Execute,
//     across cycles) is at t = k/SamplingRate, so the waveform is continuous
//     across cycles: a 1000-sample array at 1 MSps in a 1 kHz thread carries
//     an unbroken signal.
//   - A scalar, or an array with SamplingRate = 0, holds the value at the
//     cycle time in every element. Cycle c (from 0 at the first Execute) is at
//     t = c × CyclePeriod. Cycles the RT thread misses are not skipped.
//   - Noise draws a fresh value for every element of every cycle.
//
// The phase of sample k is k × Frequency/SamplingRate + Phase/2π cycles. It is
// computed from k with an exact product reduction (no long-running
// accumulator) every 64 samples and advanced incrementally in between, so it
// does not drift or lose precision over any run length, and the output is a
// pure function of k: splitting the stream into cycles differently gives the
// same bits.
type WaveformConfig struct {
	Shape     Shape
	Amplitude float64 // peak deviation from Offset; for Ramp the slope, per second
	Frequency float64 // Hz, ≥ 0; periodic shapes only (above SamplingRate/2 it aliases, as sampling does)
	Offset    float64 // value around which the waveform swings; the value of Constant
	Phase     float64 // radians, added to the phase of every sample; periodic shapes only
	DutyCycle float64 // fraction of the period a Square wave is high, in [0, 1]
	Seed      uint64  // Noise only: the same seed gives the same sequence

	SamplingRate float64         // Hz between the elements of an array; 0 for "all elements at the cycle time"
	Type         datasource.Type // element type of the output
	Elements     int             // element count of the output, ≥ 1
	CyclePeriod  time.Duration   // period of the RT thread; needed when the cycle time is the time base

	// TimeInput selects MARTe2's WaveformGAM time base instead of the
	// count above: every Execute reads a time in µs (the RT thread's Time
	// signal, Counter × period, given to BindTime), so a missed period
	// advances the waveform as in MARTe2. As MARTe2's WaveformGAM, the
	// first cycle writes zeros; the element spacing of an array is the
	// time between the first two cycles divided by Elements (SamplingRate
	// must be 0); integer outputs are truncated toward zero, as C
	// converts (then clamped); see executeTime.
	TimeInput bool
}

// CheckParameters checks the rules of the parameters a user writes (the
// name, Shape and the numbers), which do not depend on the output the
// waveform feeds (Type, Elements, CyclePeriod): a config loader checks a
// Waveform GAM with it before the application is built, and NewWaveform
// checks them again. It returns every broken rule joined (each a
// *ConfigError), or nil.
func (cfg *WaveformConfig) CheckParameters(name string) error {
	var errs []error
	bad := func(p, format string, args ...any) { errs = append(errs, paramError(name, p, format, args...)) }
	if name == "" {
		bad("Name", "must not be empty")
	}
	if !cfg.Shape.Valid() {
		bad("Shape", "invalid shape %d", uint8(cfg.Shape))
	}
	for _, p := range [...]struct {
		name string
		v    float64
	}{{"Amplitude", cfg.Amplitude}, {"Frequency", cfg.Frequency}, {"Offset", cfg.Offset}, {"Phase", cfg.Phase}, {"DutyCycle", cfg.DutyCycle}, {"SamplingRate", cfg.SamplingRate}} {
		if math.IsNaN(p.v) || math.IsInf(p.v, 0) {
			bad(p.name, "must be a finite number, got %v", p.v)
		}
	}
	if cfg.Frequency < 0 {
		bad("Frequency", "must be ≥ 0 Hz, got %v", cfg.Frequency)
	}
	if cfg.DutyCycle < 0 || cfg.DutyCycle > 1 {
		bad("DutyCycle", "must be 0..1, got %v", cfg.DutyCycle)
	}
	switch {
	case cfg.SamplingRate < 0 || (cfg.SamplingRate > 0 && cfg.SamplingRate < minSamplingRate):
		bad("SamplingRate", "must be 0 or at least %v Hz, got %v", minSamplingRate, cfg.SamplingRate)
	case cfg.TimeInput && cfg.SamplingRate != 0:
		bad("SamplingRate", "must be 0 with TimeInput: the element spacing comes from the time input")
	}
	return errors.Join(errs...)
}

// Waveform is a signal generator GAM (MARTe2's WaveformGAM family): one output
// array, named like the GAM, of any of the ten types. Float values are
// converted to the output type after generation: float32 by conversion, the
// integer types rounded to nearest (halves away from zero) and clamped to
// the type's range.
type Waveform struct {
	name    string
	cfg     WaveformConfig
	outputs [1]Output
	vals    []float64 // the values in float64: the output itself for Float64, else scratch

	perElement bool   // each element has its own sample index (not the cycle's)
	next       uint64 // index of the sample (or cycle) of the next Execute's first element
	adv        uint64 // indices consumed per Execute

	// Phase of index k, in cycles: frac(k·step + phase0). step is kept as
	// frac(step) and frac(2^32·step), so k can be split into two 32-bit halves
	// whose products have exact residuals.
	stepLo, stepHi float64
	phase0         float64
	rotSin, rotCos float64 // sin and cos of 2π·step: the per-sample rotation of a sine array

	tMul, tDiv float64 // time of index k in seconds: k·tMul/tDiv

	ti timeInput // TimeInput mode only
}

// NewWaveform validates cfg and returns a Waveform named name, its output
// allocated and zeroed. Every broken rule is reported (errors.Join of
// *ConfigError naming the GAM and the parameter).
func NewWaveform(name string, cfg WaveformConfig) (*Waveform, error) {
	errs := []error{cfg.CheckParameters(name)}
	bad := func(p, format string, args ...any) { errs = append(errs, paramError(name, p, format, args...)) }
	if cfg.Elements < 1 || cfg.Elements > datasource.MaxElements {
		bad("Elements", "must be 1..%d, got %d", datasource.MaxElements, cfg.Elements)
	}
	switch {
	case cfg.Type == datasource.Char8:
		bad("Type", "char8 is text; a waveform writes numbers (a Text GAM writes char8)")
	case !cfg.Type.Valid():
		bad("Type", "invalid type %d", uint8(cfg.Type))
	}
	if cfg.CyclePeriod < 0 {
		bad("CyclePeriod", "must be ≥ 0, got %v", cfg.CyclePeriod)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	w := &Waveform{name: name, cfg: cfg}
	w.perElement = cfg.Shape == Noise || (cfg.Elements > 1 && cfg.SamplingRate > 0)
	var step float64 // cycles per index
	if w.perElement {
		w.adv = uint64(cfg.Elements)
		step = cfg.Frequency / cfg.SamplingRate
		w.tMul, w.tDiv = 1, cfg.SamplingRate
	} else {
		w.adv = 1
		step = cfg.Frequency * float64(cfg.CyclePeriod) / 1e9
		w.tMul, w.tDiv = float64(cfg.CyclePeriod), 1e9
		timed := cfg.Shape == Ramp || (cfg.Frequency > 0 && (cfg.Shape == Sine || cfg.Shape == Square || cfg.Shape == Triangle || cfg.Shape == Sawtooth))
		if timed && cfg.CyclePeriod == 0 && !cfg.TimeInput {
			bad("CyclePeriod", "must be > 0: a %v %s takes its time from the cycle count", cfg.Shape, timeBaseName(cfg))
		}
	}
	if cfg.Shape > Sawtooth {
		step = 0 // not periodic: Frequency is ignored
	}
	if math.IsInf(step*(1<<32), 0) || math.IsNaN(step) {
		bad("Frequency", "%v Hz is too high for the time base", cfg.Frequency)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if cfg.Shape <= Sawtooth { // periodic
		w.stepLo = step - math.Floor(step)
		hi := step * (1 << 32)
		w.stepHi = hi - math.Floor(hi)
		p := cfg.Phase / (2 * math.Pi)
		w.phase0 = p - math.Floor(p)
		if w.phase0 >= 1 {
			w.phase0 = 0
		}
		w.rotSin, w.rotCos = math.Sincos(2 * math.Pi * w.stepLo)
	}
	w.outputs[0] = newOutput(name, cfg.Type, cfg.Elements)
	if cfg.Type == datasource.Float64 {
		w.vals = view[float64](w.outputs[0].Mem)
	} else {
		w.vals = make([]float64, cfg.Elements)
	}
	if cfg.TimeInput {
		w.initTimeInput()
	}
	return w, nil
}

func timeBaseName(cfg WaveformConfig) string {
	if cfg.Elements == 1 {
		return "scalar"
	}
	return "array with SamplingRate 0"
}

// Name returns the GAM's name, which is also the name of its output.
func (w *Waveform) Name() string { return w.name }

// Config returns the configuration the Waveform was built with.
func (w *Waveform) Config() WaveformConfig { return w.cfg }

// Outputs returns the single output.
func (w *Waveform) Outputs() []Output { return w.outputs[:] }

// Execute writes the next cycle's values into the output. It does not
// allocate. It never fails, except in TimeInput mode where it fails as
// MARTe2's WaveformGAM does (ErrTimeStill, ErrNyquist).
func (w *Waveform) Execute() error {
	if w.cfg.TimeInput {
		return w.executeTime()
	}
	v, k := w.vals, w.next
	if w.perElement {
		w.fill(v, k)
	} else {
		x := w.value(k)
		for i := range v {
			v[i] = x
		}
	}
	w.next += w.adv
	w.store()
	return nil
}

// anchorEvery is the spacing of the samples whose phase an array computes
// exactly from their index; the samples in between advance from the last
// anchor by addition (and, for the sine, by rotation), which is several times
// cheaper. Anchors sit at absolute indices that are multiples of anchorEvery,
// so the output is a pure function of the sample index: any split of the
// stream into cycles gives the same bits. The drift between anchors is a few
// ulps of one cycle.
const anchorEvery = 64

// fill writes the values of indices k, k+1, ... into v.
func (w *Waveform) fill(v []float64, k uint64) {
	a, o := w.cfg.Amplitude, w.cfg.Offset
	switch w.cfg.Shape {
	case Sine:
		w.fillSine(v, k)
	case Square:
		w.fillPhases(v, k)
		d := w.cfg.DutyCycle
		for i, u := range v {
			if u < d {
				v[i] = o + a
			} else {
				v[i] = o - a
			}
		}
	case Triangle:
		w.fillPhases(v, k)
		for i, u := range v {
			if u < 0.5 {
				v[i] = o + a*(4*u-1)
			} else {
				v[i] = o + a*(3-4*u)
			}
		}
	case Sawtooth:
		w.fillPhases(v, k)
		for i, u := range v {
			v[i] = o + a*(2*u-1)
		}
	case Noise:
		for i := range v {
			v[i] = o + a*noise(w.cfg.Seed, k+uint64(i))
		}
	default:
		for i := range v {
			v[i] = w.value(k + uint64(i))
		}
	}
}

// fillPhases writes the phases of indices k, k+1, ... into v, in [0, 1).
func (w *Waveform) fillPhases(v []float64, k uint64) {
	s := w.stepLo
	for i := 0; i < len(v); {
		idx := k + uint64(i)
		base := idx &^ (anchorEvery - 1)
		u := w.phase(base)
		for j := base; j != idx; j++ { // catch up from the anchor
			if u += s; u >= 1 {
				u--
			}
		}
		end := min(len(v), i+int(base+anchorEvery-idx))
		for ; i < end; i++ {
			v[i] = u
			if u += s; u >= 1 {
				u--
			}
		}
	}
}

// fillSine writes the sine of indices k, k+1, ... into v: the unit phasor
// is computed exactly at each anchor and rotated by one step per sample.
// The rotation drifts a few ulps, so the sine it gives can pass ±1 by as
// much; it is clamped to [-1, 1], where the exact sine lies, so that the
// output stays within Offset ± |Amplitude| as the shape promises (the
// clamp only ever moves a value toward the exact one).
func (w *Waveform) fillSine(v []float64, k uint64) {
	a, o := w.cfg.Amplitude, w.cfg.Offset
	rs, rc := w.rotSin, w.rotCos
	for i := 0; i < len(v); {
		idx := k + uint64(i)
		base := idx &^ (anchorEvery - 1)
		s, c := math.Sincos(2 * math.Pi * w.phase(base))
		for j := base; j != idx; j++ { // catch up from the anchor
			s, c = s*rc+c*rs, c*rc-s*rs
		}
		end := min(len(v), i+int(base+anchorEvery-idx))
		for ; i < end; i++ {
			u := s
			if u > 1 {
				u = 1
			} else if u < -1 {
				u = -1
			}
			v[i] = o + a*u
			s, c = s*rc+c*rs, c*rc-s*rs
		}
	}
}

// value returns the waveform's value at index k.
func (w *Waveform) value(k uint64) float64 {
	a, o := w.cfg.Amplitude, w.cfg.Offset
	switch w.cfg.Shape {
	case Sine:
		return o + a*math.Sin(2*math.Pi*w.phase(k))
	case Square:
		if w.phase(k) < w.cfg.DutyCycle {
			return o + a
		}
		return o - a
	case Triangle:
		u := w.phase(k)
		if u < 0.5 {
			return o + a*(4*u-1)
		}
		return o + a*(3-4*u)
	case Sawtooth:
		return o + a*(2*w.phase(k)-1)
	case Ramp:
		return o + a*(float64(k)*w.tMul/w.tDiv)
	case Noise:
		return o + a*noise(w.cfg.Seed, k)
	}
	return o
}

// phase returns the phase of index k in cycles, in [0, 1).
func (w *Waveform) phase(k uint64) float64 {
	u := fracMul(float64(uint32(k)), w.stepLo) + w.phase0
	if hi := k >> 32; hi != 0 {
		u += fracMul(float64(hi), w.stepHi)
	}
	u -= math.Floor(u)
	if u >= 1 { // a tiny negative u rounds to 1 after the floor
		u = 0
	}
	return u
}

// fracMul returns the fractional part of a·b for an integer a < 2^53, with an
// error of a few ulps of 1 however large a·b is: the product's rounding error
// is recovered exactly with a fused multiply-add.
func fracMul(a, b float64) float64 {
	p := a * b
	e := math.FMA(a, b, -p)
	return (p - math.Floor(p)) + e
}

// noise returns a uniform value in [-1, 1) for index k of the sequence seed:
// the k-th output of SplitMix64 started at seed, so it is a pure function of
// k and costs a few integer operations.
func noise(seed, k uint64) float64 {
	z := seed + (k+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11)*(2.0/(1<<53)) - 1
}

// store converts the float64 values into the output's type.
func (w *Waveform) store() {
	if f := storeByType[w.cfg.Type]; f != nil {
		f(w.outputs[0].Mem, w.vals)
	}
}

// storeByType converts float64 values into each output type; Float64 needs
// nothing, the values are the output.
var storeByType = [...]func(mem []byte, v []float64){
	datasource.Uint8: storeInt[uint8], datasource.Int8: storeInt[int8],
	datasource.Uint16: storeInt[uint16], datasource.Int16: storeInt[int16],
	datasource.Uint32: storeInt[uint32], datasource.Int32: storeInt[int32],
	datasource.Uint64: storeInt[uint64], datasource.Int64: storeInt[int64],
	datasource.Float32: storeFloat32, datasource.Float64: nil,
}

func storeFloat32(mem []byte, v []float64) {
	dst := view[float32](mem)
	for i, x := range v[:len(dst)] {
		dst[i] = float32(x)
	}
}

// storeInt rounds each value to nearest and clamps it to T's range,
// comparing against exact float64 bounds: lo = T's minimum, hi one past its
// maximum (float64 of a 64-bit maximum rounds up to that power of two
// already), so the test is exact even for 64-bit types. NaN, which
// validated settings never produce, stores T's minimum.
func storeInt[T uint8 | int8 | uint16 | int16 | uint32 | int32 | uint64 | int64](mem []byte, v []float64) {
	minT, maxT := T(0), ^T(0)
	if maxT < 0 { // signed
		minT = T(1) << (unsafe.Sizeof(minT)*8 - 1)
		maxT = ^minT
	}
	lo, hi := float64(minT), float64(maxT)+1
	dst := view[T](mem)
	for i, x := range v[:len(dst)] {
		r := math.Round(x)
		switch {
		case r >= hi:
			dst[i] = maxT
		case r >= lo:
			dst[i] = T(r)
		default:
			dst[i] = minT
		}
	}
}
