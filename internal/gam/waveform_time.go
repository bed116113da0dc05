package gam

import (
	"errors"
	"math"

	"github.com/streamerd/streamerd/datasource"
)

// Errors a Waveform in time-input mode returns from Execute, on the cycle
// where MARTe2's WaveformGAM fails; the outputs keep their values.
var (
	ErrTimeStill = errors.New("gam: waveform: the time input did not advance between the first two cycles")
	ErrNyquist   = errors.New("gam: waveform: Frequency is above half the rate of the samples (element spacing from the first two cycles)")
)

// timeInput is the state of a Waveform in time-input mode: it follows
// MARTe2's WaveformGAM (Waveform.cpp), reading a time in µs every cycle.
type timeInput struct {
	src   *uint32 // the time input, µs
	zero  uint32  // what src points at until BindTime
	state uint8   // 0 before the first Execute, 1 after it, 2 once inc is known
	last  uint32  // the previous raw input, to see it wrap
	high  uint64  // 2^32 × the number of wraps seen
	first uint64  // the (unwrapped) time of the first Execute, µs
	inc   float64 // s between consecutive elements of an array
	omega float64 // 2π·Frequency, rounded as MARTe2 computes it
	k     uint64  // elements produced so far (the noise index)
}

// BindTime points a Waveform in time-input mode at its time input (µs).
// An application builds its GAMs before the RT thread that owns the Time
// signal, so it binds each such Waveform once the thread exists, before it
// starts. It panics on a Waveform without TimeInput or a nil pointer.
func (w *Waveform) BindTime(timeUs *uint32) {
	if !w.cfg.TimeInput || timeUs == nil {
		panic("gam: waveform " + w.name + ": BindTime needs TimeInput and a non-nil pointer")
	}
	w.ti.src = timeUs
}

func (w *Waveform) initTimeInput() {
	w.ti.src = &w.ti.zero
	w.ti.omega = 2 * math.Pi * w.cfg.Frequency
}

// executeTime is Execute in time-input mode. The first cycle writes zeros
// and records the time; the second derives the element spacing of an
// array, (t1 − t0)/Elements, and from then on element i of a cycle at time
// t is the waveform at t + i·spacing, the sine computed as MARTe2 does,
// Amplitude·sin(2π·Frequency·t + Phase) + Offset. The time input is
// unwrapped past 2^32 µs, where MARTe2's would stop the GAM.
func (w *Waveform) executeTime() error {
	ti := &w.ti
	raw := *ti.src
	if ti.state > 0 && raw < ti.last {
		ti.high += 1 << 32
	}
	ti.last = raw
	now := ti.high + uint64(raw)
	switch ti.state {
	case 0:
		ti.first, ti.state = now, 1
		clear(w.vals)
		w.store()
		return nil
	case 1:
		ti.state = 2
		ti.inc = (float64(now) - float64(ti.first)) / float64(len(w.vals)) / 1e6
		if ti.inc == 0 {
			return ErrTimeStill
		}
		if w.cfg.Shape <= Sawtooth && 1/ti.inc/2 < w.cfg.Frequency {
			return ErrNyquist
		}
	}
	t := float64(now) / 1e6
	for i := range w.vals {
		w.vals[i] = w.valueAt(t)
		t += ti.inc
	}
	if w.cfg.Type != datasource.Float32 && w.cfg.Type != datasource.Float64 {
		for i, x := range w.vals {
			w.vals[i] = math.Trunc(x) // C's conversion to an integer, as MARTe2's static_cast
		}
	}
	w.store()
	return nil
}

// valueAt returns the waveform at t seconds. The float64 conversions keep
// each product rounded on its own (no fused multiply-add), as MARTe2's C++.
func (w *Waveform) valueAt(t float64) float64 {
	c := &w.cfg
	a, o := c.Amplitude, c.Offset
	switch c.Shape {
	case Sine:
		return float64(a*math.Sin(float64(w.ti.omega*t)+c.Phase)) + o
	case Square, Triangle, Sawtooth:
		x := float64(c.Frequency*t) + c.Phase/(2*math.Pi)
		u := x - math.Floor(x)
		switch c.Shape {
		case Square:
			if u < c.DutyCycle {
				return o + a
			}
			return o - a
		case Triangle:
			if u < 0.5 {
				return o + a*(4*u-1)
			}
			return o + a*(3-4*u)
		}
		return o + a*(2*u-1)
	case Ramp:
		return o + float64(a*t)
	case Noise:
		w.ti.k++
		return o + a*noise(c.Seed, w.ti.k-1)
	}
	return o
}
