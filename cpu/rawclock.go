package cpu

import (
	"sync/atomic"
	"time"
)

// RawClock reads CLOCK_MONOTONIC_RAW without a system call on the reading
// side. A raw clock_gettime costs a real system call (about 270 ns here)
// because the Go runtime only reads CLOCK_MONOTONIC through the vDSO; the RT
// thread must not make one per cycle. RawClock therefore maps the vDSO's
// CLOCK_MONOTONIC (time.Since, about 25 ns) to CLOCK_MONOTONIC_RAW with a
// line fitted by Calibrate, which some other goroutine calls about once a
// second (it makes the system call). The two clocks differ only by NTP's
// frequency slew (at most 500 ppm) and its steps of rate, so the line is
// exact to well under a microsecond between calibrations.
//
// Now may be called from any goroutine concurrently with one Calibrate
// caller; it does not allocate. Before the first Calibrate, Now makes the
// system call.
type RawClock struct {
	base time.Time // origin of the CLOCK_MONOTONIC readings

	// seqlock-protected calibration; every field atomic for the race
	// detector and the memory model.
	seq   atomic.Uint64
	mono0 atomic.Int64  // ns since base at the last calibration
	raw0  atomic.Uint64 // CLOCK_MONOTONIC_RAW then
	rate  atomic.Uint64 // float64 bits: raw ns per monotonic ns

	// Calibrate's own state (one caller at a time).
	lastMono int64
	lastRaw  uint64
	have     bool
}

// NewRawClock returns a RawClock calibrated once.
func NewRawClock() *RawClock {
	c := &RawClock{base: time.Now()}
	c.rate.Store(float64bits(1))
	c.Calibrate()
	return c
}

// Calibrate reads both clocks and refits the line. Call it from a non-RT
// goroutine, for example once a second from a network thread.
func (c *RawClock) Calibrate() {
	m1 := int64(time.Since(c.base))
	raw := MonotonicRawNanos()
	m2 := int64(time.Since(c.base))
	mono := m1 + (m2-m1)/2
	rate := 1.0
	if c.have && mono > c.lastMono {
		rate = float64(raw-c.lastRaw) / float64(mono-c.lastMono)
		if rate < 0.999 || rate > 1.001 { // a suspended VM or a clock step: start over
			rate = 1
		}
	}
	c.lastMono, c.lastRaw, c.have = mono, raw, true
	s := c.seq.Add(1) // odd: writing
	c.mono0.Store(mono)
	c.raw0.Store(raw)
	c.rate.Store(float64bits(rate))
	c.seq.Store(s + 1)
}

// Now returns CLOCK_MONOTONIC_RAW in nanoseconds, extrapolated from the last
// calibration.
func (c *RawClock) Now() uint64 {
	for {
		s := c.seq.Load()
		if s&1 != 0 {
			continue
		}
		mono0, raw0, rate := c.mono0.Load(), c.raw0.Load(), float64frombits(c.rate.Load())
		if c.seq.Load() != s {
			continue
		}
		d := int64(time.Since(c.base)) - mono0
		return raw0 + uint64(int64(float64(d)*rate))
	}
}

// SinceCalibration returns how long ago Calibrate last ran.
func (c *RawClock) SinceCalibration() time.Duration {
	return time.Since(c.base) - time.Duration(c.mono0.Load())
}
