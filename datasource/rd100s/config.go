package rd100s

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/internal/rules"
	"github.com/streamerd/streamerd/datasource/rd100s/wire"
	"github.com/streamerd/streamerd/rt/cpu"
)

// Defaults of the parameters (docs/rd100s.md, sections 1 and 8).
const (
	defaultDestPort = 5100
	defaultRateHz   = 100.0
	// maxRateHz bounds rate_hz; beyond it the sleep granularity of a
	// normal thread dominates the period.
	maxRateHz = 10000.0
	// minRateHz bounds rate_hz from below: one packet an hour, the longest
	// period an RT thread takes too (a slower rate's period in ns would not
	// fit the emitter's clock arithmetic).
	minRateHz = 1.0 / 3600
	// lockTimeout bounds how long Synchronise waits for the FastLock.
	// The network thread holds it only to copy signal memory.
	lockTimeout = 100 * time.Microsecond
)

// unit is the unit of a mapped signal: degrees (deg, or deg/s for a rate)
// or millidegrees (mdeg, mdeg/s). Degrees are converted to millidegrees
// rounding to nearest, halves away from zero.
type unit uint8

// Units of a mapped signal.
const (
	degrees unit = iota
	millidegrees
)

// parseUnit parses a unit: "" (the default), deg, degree(s), deg/s for
// degrees; mdeg, millidegree(s), mdeg/s for millidegrees.
func parseUnit(s string) (unit, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "deg", "degree", "degrees", "deg/s":
		return degrees, nil
	case "mdeg", "millidegree", "millidegrees", "mdeg/s":
		return millidegrees, nil
	}
	return 0, fmt.Errorf("unknown unit %q (want deg or mdeg)", s)
}

// Config is the configuration of an RD100S encoder emulator. Parameter
// names in errors are the keys of section 8 of docs/rd100s.md (dest_host,
// rate_hz, azimuth_signal, ...) and the degradation keys (Set).
//
// A zero DestPort means 5100 and a zero RateHz means 100 Hz. The zero
// Status is an invalid, unreferenced encoder: start from DefaultConfig,
// which sets AZ_VALID, EL_VALID, AZ_REF_OK and EL_REF_OK.
type Config struct {
	Name string
	// DestHost (dest_host) is the receiver: an IPv4 address or a name,
	// resolved once by New.
	DestHost string
	// DestPort (dest_port) is the receiver's UDP port, 5100 when 0.
	DestPort int
	// SrcPort (src_port) is the local port; 0 takes an ephemeral one.
	SrcPort int
	// RateHz (rate_hz) is the emission cadence, 1/3600 ≤ rate ≤ 10000 Hz,
	// independent of the RT thread's period.
	RateHz float64
	// FirstSeq (first_seq) is the seq of the first packet. The receiver
	// must not assume 0 (section 2).
	FirstSeq uint32

	// Signal mapping (section 8). AzimuthSignal and ElevationSignal are
	// required; a rate signal left empty sends 0. Each must name a scalar
	// signal of Signals, of any numeric type.
	AzimuthSignal   string // azimuth_signal, wrapped into 0..359999 mdeg
	ElevationSignal string // elevation_signal, passed through (not clamped to ±90°)
	AzRateSignal    string // az_rate_signal
	ElRateSignal    string // el_rate_signal
	// Units of the mapped signals (azimuth_unit, elevation_unit,
	// rate_unit): "deg" (or "", the default) or "mdeg"; for the rates,
	// per second.
	AzimuthUnit, ElevationUnit, RateUnit string

	// StatusSignal (status_signal), when set, names an integer scalar
	// signal whose bits 0..5 drive AZ_VALID, EL_VALID, AZ_REF_OK,
	// EL_REF_OK, AZ_FAULT and EL_FAULT on every packet; its other bits are
	// ignored. When empty, Status is sent.
	StatusSignal string
	// Status holds the status bits sent when StatusSignal is empty
	// (az_valid, el_valid, az_ref_ok, el_ref_ok, az_fault, el_fault: bits
	// 0..5 of wire.Status; the emitter sets SIM and DEGRADED itself and
	// ignores them here).
	Status wire.Status

	// CPUMask pins the network thread; 0 leaves it unpinned.
	CPUMask cpu.Mask
	// Priority runs the network thread under SCHED_FIFO at this priority
	// (1..99; 0 leaves normal scheduling): the ±2 ms cadence budget then
	// holds on a loaded machine.
	Priority int
	// Seed (seed) seeds the random choices of the degradations. The same
	// seed gives the same sequence of choices; 0 is a valid seed.
	Seed uint64
	// Degradations is the degradation state at start: keys and values as
	// Set takes them ({"loss_probability": "0.1", "jitter_ms": "2"}); each
	// active one is recorded as an event with source "config".
	Degradations map[string]string

	// Signals are every signal of the datasource, in declaration order.
	Signals []datasource.Signal
}

// DefaultConfig returns a Config with the defaults of section 8 and a
// healthy, referenced encoder: AZ_VALID, EL_VALID, AZ_REF_OK and EL_REF_OK
// set, no fault. The caller fills Name, DestHost, the signal names and
// Signals.
func DefaultConfig() Config {
	return Config{
		DestPort: defaultDestPort,
		RateHz:   defaultRateHz,
		Status:   wire.AzValid | wire.ElValid | wire.AzRefOK | wire.ElRefOK,
	}
}

// Validate checks every rule of the configuration and returns all broken
// rules joined (each a *datasource.ConfigError), or nil; a nil cfg is an
// error. It does not resolve DestHost; New does.
func Validate(cfg *Config) error {
	if cfg == nil {
		return errors.New("rd100s: Validate: nil Config")
	}
	c := cfg.withDefaults()
	e := &rules.ConfigErrors{DataSource: c.Name, Signals: c.Signals}
	switch {
	case strings.TrimSpace(c.DestHost) == "":
		e.Param("dest_host", "is required (the receiver's IPv4 address or host name)")
	case strings.ContainsAny(c.DestHost, " \t/"):
		e.Param("dest_host", "must be an IPv4 address or a host name, got %q", c.DestHost)
	}
	if c.DestPort < 1 || c.DestPort > 65535 {
		e.Param("dest_port", "must be 1..65535, got %d", c.DestPort)
	}
	if c.SrcPort < 0 || c.SrcPort > 65535 {
		e.Param("src_port", "must be 0..65535 (0: ephemeral), got %d", c.SrcPort)
	}
	rateHz := c.RateHz
	if math.IsNaN(rateHz) || rateHz < minRateHz || rateHz > maxRateHz {
		e.Param("rate_hz", "must be ≥ 1/3600 (one packet an hour) and ≤ %v Hz, got %v", maxRateHz, c.RateHz)
		rateHz = maxRateHz // the jitter bound of the fastest rate
	}
	e.Priority(c.Priority)
	for _, u := range []struct{ key, u string }{{"azimuth_unit", c.AzimuthUnit}, {"elevation_unit", c.ElevationUnit}, {"rate_unit", c.RateUnit}} {
		if _, err := parseUnit(u.u); err != nil {
			e.Param(u.key, "must be deg or mdeg, got %q", u.u)
		}
	}
	e.Add(rules.ValidateSignals(c.Name, c.Signals))
	c.checkMapping(e)
	d := parseDegradations(c.Degradations, e)
	d.check(e, rateHz)
	return e.Err()
}

// checkMapping checks the signal mapping of section 8: each mapped name is
// a scalar signal of the datasource, the status signal an integer one.
func (c *Config) checkMapping(e *rules.ConfigErrors) {
	mapped := []struct {
		key, name string
		required  bool
		integer   bool
	}{
		{"azimuth_signal", c.AzimuthSignal, true, false},
		{"elevation_signal", c.ElevationSignal, true, false},
		{"az_rate_signal", c.AzRateSignal, false, false},
		{"el_rate_signal", c.ElRateSignal, false, false},
		{"status_signal", c.StatusSignal, false, true},
	}
	for _, m := range mapped {
		if m.name == "" {
			if m.required {
				e.Param(m.key, "is required: name the signal to send")
			}
			continue
		}
		i, ok := e.Lookup(m.name)
		if !ok {
			e.Param(m.key, "names no signal of this datasource: %q", m.name)
			continue
		}
		s := &c.Signals[i]
		if !s.Type.Valid() {
			continue // reported by ValidateSignals
		}
		if s.Type == datasource.Char8 {
			e.Param(m.key, "signal %q is %v, text; the packet's fields are numbers", m.name, s.Type)
			continue
		}
		if s.NumberOfDimensions != 0 || s.Elements() != 1 {
			e.Param(m.key, "signal %q must be a scalar (NumberOfDimensions 0), got %d dimensions and %d elements", m.name, s.NumberOfDimensions, s.Elements())
		}
		if m.integer && s.Type.IsFloat() {
			e.Param(m.key, "signal %q must have an integer type (its bits drive the status word), got %v", m.name, s.Type)
		}
	}
}

// periodNs returns the nominal period in nanoseconds.
func periodNs(rateHz float64) float64 { return 1e9 / rateHz }

// withDefaults returns c with every zero field that has a default set to
// it.
func (c Config) withDefaults() Config {
	rules.SetDefault(&c.DestPort, defaultDestPort)
	rules.SetDefault(&c.RateHz, defaultRateHz)
	return c
}
