package client

import (
	"fmt"
	"strings"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
	"github.com/streamerd/streamerd/quant"
)

// Config is one session's signal list as parsed from CONFIG, with the plan used
// to decode DATA. It is read-only once Connect or Next has returned it, so it may
// be shared by any number of goroutines and Updates.
type Config struct {
	// Signals are the signals of the session in CONFIG order (index i is
	// signal i everywhere), each as its producer declares it: a scalar
	// has NumberOfDimensions 0, a vector NumberOfElements, a matrix Rows
	// and Cols; TimeSignal names the time signal of an array.
	Signals     []datasource.Signal
	recs        []frame.SignalInfo // the CONFIG records
	slots       []frame.Slot       // where each signal lies in the DATA payload
	payloadSize int                // bytes of every DATA payload of the session

	raw   []byte // the CONFIG payload, to recognise a repeated CONFIG
	plans []sigPlan
}

// sigPlan is what decoding one signal needs beyond its record and Slot.
type sigPlan struct {
	quantised bool
	q         quant.Quantizer
	// timePerSecond is the time signal's units per second (FullArray,
	// FirstSample, LastSample), from its Unit by UnitsPerSecond.
	timePerSecond float64
}

// newConfig parses a reassembled CONFIG payload and plans its decoding. It
// allocates; it runs once per session.
func newConfig(payload []byte) (*Config, error) {
	sigs, err := frame.ParseConfig(payload)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupportedConfig, err)
	}
	c := &Config{Signals: frame.Signals(sigs), recs: sigs, raw: append([]byte(nil), payload...), plans: make([]sigPlan, len(sigs))}
	c.slots, c.payloadSize = frame.AppendSlots(make([]frame.Slot, 0, len(sigs)), sigs)
	for i := range sigs {
		s, p := &sigs[i], &c.plans[i]
		if s.Quant != quant.None {
			q, err := quant.New(s.Quant, s.RangeMin, s.RangeMax)
			if err != nil {
				return nil, fmt.Errorf("%w: %w: signal %d (%q): %v", ErrUnsupportedConfig, frame.ErrConfig, i, s.Name, err)
			}
			p.q, p.quantised = q, true
		}
		if s.TimeMode != datasource.PacketTime {
			p.timePerSecond, _ = unitsPerSecond(sigs[s.TimeSignalIdx].Unit)
		}
	}
	return c, nil
}

// Index returns the index of the signal called name, or -1.
func (c *Config) indexOf(name string) int {
	for i := range c.Signals {
		if c.Signals[i].Name == name {
			return i
		}
	}
	return -1
}

// WireType is the element type of signal i on the wire: its quantised type if
// quantised, its own type otherwise: the elements Update.Raw returns. For
// a signal it does not have (i out of range, or a Config that ParseConfig
// did not make) it returns an invalid Type, whose Valid is false.
func (c *Config) WireType(i int) datasource.Type {
	if c == nil || i < 0 || i >= len(c.slots) {
		return ^datasource.Type(0)
	}
	return c.slots[i].WireType
}

// UnitsPerSecond returns how many units of a time signal whose Unit is unit make
// one second: 1 for "s", 1e3 for "ms", 1e6 for "us", "µs" (U+00B5) or "μs"
// (U+03BC), 1e9 for "ns". Any other unit, including the empty one, is taken as
// seconds: the result is 1 and known is false. Surrounding spaces are ignored.
//
// Update.Times divides a time signal's values by this number to express them in
// seconds.
func unitsPerSecond(unit string) (perSecond float64, known bool) {
	switch strings.TrimSpace(unit) {
	case "s":
		return 1, true
	case "ms":
		return 1e3, true
	case "us", "\u00b5s", "\u03bcs":
		return 1e6, true
	case "ns":
		return 1e9, true
	}
	return 1, false
}
