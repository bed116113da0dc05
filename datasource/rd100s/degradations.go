package rd100s

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/streamerd/streamerd/datasource/internal/rules"
)

// degradations is the state of the injected faults of section 6. The zero
// value is a nominal stream. Each field is named in errors, events and
// metrics by its key (in parentheses); doc.go gives the exact semantics.
type degradations struct {
	// LossProbability (loss_probability): each packet is dropped with this
	// probability, 0..1. A lost packet consumes its seq.
	LossProbability float64
	// LossEveryN (loss_every_n): the N-th, 2N-th, ... packet counted from
	// activation is dropped; 0 is off, 1 drops every packet.
	LossEveryN int
	// BurstLoss (burst_loss_ms): drop every packet for this long starting
	// now, then deactivate on its own. Setting it again restarts the burst;
	// 0 ends a burst in progress. Degradation reports the time left.
	BurstLoss time.Duration
	// DuplicateProbability (duplicate_probability): each packet sent is
	// sent twice back to back (same bytes) with this probability, 0..1.
	DuplicateProbability float64
	// ReorderWindow (reorder_window_ms): each packet is held back a
	// uniformly random 0..W and sent when due, so later packets overtake
	// it. At most 10 s.
	ReorderWindow time.Duration
	// Jitter (jitter_ms): each send instant deviates uniformly within ±J
	// from the nominal grid, which does not drift. At most half a period.
	Jitter time.Duration
	// Freeze (freeze): azimuth, elevation and both rates are held at their
	// values when freeze took effect, while seq and t_us advance.
	Freeze bool
	// InvalidAz, InvalidEl (invalid_az, invalid_el) clear AZ_VALID /
	// EL_VALID; the position keeps following its signal.
	InvalidAz, InvalidEl bool
	// SeqJump (seq_jump) adds this delta to seq once, at the next packet,
	// then deactivates on its own. Degradation reports a jump still
	// pending.
	SeqJump int32
	// Silence (silence): nothing is sent, not even a packet held by the
	// reorder window; seq keeps advancing.
	Silence bool
}

// Limits of the degradation parameters.
const (
	maxBurstLoss     = time.Hour
	maxReorderWindow = 10 * time.Second
	maxLossEveryN    = 1 << 30
)

// kind identifies one degradation.
type kind uint8

const (
	kLossProbability kind = iota
	kLossEveryN
	kBurstLoss
	kDuplicate
	kReorder
	kJitter
	kFreeze
	kInvalidAz
	kInvalidEl
	kSeqJump
	kSilence
	numKinds
)

// kindNames name the degradations in events, metrics and the status's active list.
var kindNames = [numKinds]string{
	"loss_probability", "loss_every_n", "burst_loss", "duplicate", "reorder",
	"jitter", "freeze", "invalid_az", "invalid_el", "seq_jump", "silence",
}

// Keys are the parameter keys of the degradations, in the order of
// degradations' fields, as Set and setKey accept them.
var keys = [numKinds]string{
	"loss_probability", "loss_every_n", "burst_loss_ms", "duplicate_probability", "reorder_window_ms",
	"jitter_ms", "freeze", "invalid_az", "invalid_el", "seq_jump", "silence",
}

func kindOfKey(key string) (kind, bool) {
	for i, k := range keys {
		if k == key {
			return kind(i), true
		}
	}
	return 0, false
}

// field returns a pointer to the field of degradation k in d: a
// *float64, *int, *time.Duration, *bool or *int32.
func (d *degradations) field(k kind) any {
	switch k {
	case kLossProbability:
		return &d.LossProbability
	case kLossEveryN:
		return &d.LossEveryN
	case kBurstLoss:
		return &d.BurstLoss
	case kDuplicate:
		return &d.DuplicateProbability
	case kReorder:
		return &d.ReorderWindow
	case kJitter:
		return &d.Jitter
	case kFreeze:
		return &d.Freeze
	case kInvalidAz:
		return &d.InvalidAz
	case kInvalidEl:
		return &d.InvalidEl
	case kSeqJump:
		return &d.SeqJump
	case kSilence:
		return &d.Silence
	}
	return nil
}

// active reports whether degradation k is on in d: a non-zero field.
func (d *degradations) active(k kind) bool {
	switch p := d.field(k).(type) {
	case *float64:
		return *p > 0
	case *int:
		return *p > 0
	case *time.Duration:
		return *p > 0
	case *bool:
		return *p
	case *int32:
		return *p != 0
	}
	return false
}

// copyKind copies the field of degradation k from src to dst.
func copyKind(dst, src *degradations, k kind) {
	switch p := dst.field(k).(type) {
	case *float64:
		*p = *src.field(k).(*float64)
	case *int:
		*p = *src.field(k).(*int)
	case *time.Duration:
		*p = *src.field(k).(*time.Duration)
	case *bool:
		*p = *src.field(k).(*bool)
	case *int32:
		*p = *src.field(k).(*int32)
	}
}

// Any reports whether any degradation is active.
func (d *degradations) anyActive() bool {
	for k := range numKinds {
		if d.active(k) {
			return true
		}
	}
	return false
}

// Active returns the names of the active degradations.
func (d *degradations) activeKeys() []string {
	var a []string
	for k := range numKinds {
		if d.active(k) {
			a = append(a, kindNames[k])
		}
	}
	return a
}

// value formats the parameter of degradation k as its key takes it.
func (d *degradations) value(k kind) string {
	switch p := d.field(k).(type) {
	case *float64:
		return strconv.FormatFloat(*p, 'g', -1, 64)
	case *int:
		return strconv.Itoa(*p)
	case *time.Duration:
		return ms(*p)
	case *bool:
		return strconv.FormatBool(*p)
	case *int32:
		return strconv.Itoa(int(*p))
	}
	return ""
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'g', -1, 64)
}

// get returns the value of the degradation key as setKey would accept it.
func (d *degradations) get(key string) (string, error) {
	k, ok := kindOfKey(key)
	if !ok {
		return "", unknownKey(key)
	}
	return d.value(k), nil
}

func unknownKey(key string) error {
	return fmt.Errorf("unknown degradation %q (want one of %s)", key, strings.Join(keys[:], ", "))
}

// setKey sets the degradation named by key from its text value, as an
// operator or a config file writes it: probabilities as numbers 0..1,
// durations as milliseconds ("50", "0.5") or Go durations ("50ms"), bools
// as true/false/on/off/1/0, seq_jump and loss_every_n as integers. Ranges
// are checked by Validate and by the Encoder's setters, not here.
func (d *degradations) setKey(key, value string) error {
	if err := d.parse(key, value); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

// parse is setKey with an error that does not repeat the key.
func (d *degradations) parse(key, value string) error {
	k, ok := kindOfKey(key)
	if !ok {
		return unknownKey(key)
	}
	v := strings.TrimSpace(value)
	var err error
	switch p := d.field(k).(type) {
	case *float64:
		*p, err = strconv.ParseFloat(v, 64)
	case *int:
		*p, err = strconv.Atoi(v)
	case *time.Duration:
		*p, err = parseMs(v)
	case *bool:
		*p, err = parseBool(v)
	case *int32:
		var n int64
		n, err = strconv.ParseInt(v, 10, 32)
		*p = int32(n)
	}
	if err != nil {
		return fmt.Errorf("cannot parse %q: %w", value, unwrapNum(err))
	}
	return nil
}

// parseDegradations parses the degradations of a Config (keys and values
// as Set takes them), recording in e every unknown key and every value
// that does not parse, each at its key.
func parseDegradations(m map[string]string, e *rules.ConfigErrors) degradations {
	var d degradations
	for _, key := range slices.Sorted(maps.Keys(m)) {
		if _, ok := kindOfKey(key); !ok {
			e.Param(key, "unknown degradation (want one of %s)", strings.Join(keys[:], ", "))
			continue
		}
		if err := d.parse(key, m[key]); err != nil {
			e.Param(key, "%v", err)
		}
	}
	return d
}

func unwrapNum(err error) error {
	if ne, ok := err.(*strconv.NumError); ok {
		return ne.Err
	}
	return err
}

func parseMs(v string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		ns := math.Round(f * float64(time.Millisecond))
		if !(ns >= math.MinInt64 && ns < math.MaxInt64) { // NaN fails both
			return 0, fmt.Errorf("out of range")
		}
		return time.Duration(ns), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("want milliseconds or a duration such as 50ms")
	}
	return d, nil
}

func parseBool(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "on", "yes":
		return true, nil
	case "off", "no":
		return false, nil
	}
	return strconv.ParseBool(v)
}

// check records the broken ranges in e; rateHz bounds the jitter to half a
// period so ticks never swap.
func (d *degradations) check(e *rules.ConfigErrors, rateHz float64) {
	bad := func(k kind, format string, args ...any) { e.Param(keys[k], format, args...) }
	prob := func(k kind, p float64) {
		if !(p >= 0 && p <= 1) {
			bad(k, "must be a probability in 0..1, got %v", p)
		}
	}
	prob(kLossProbability, d.LossProbability)
	prob(kDuplicate, d.DuplicateProbability)
	if d.LossEveryN < 0 || d.LossEveryN > maxLossEveryN {
		bad(kLossEveryN, "must be 0 (off) or 1..%d (drop one packet in N), got %d", maxLossEveryN, d.LossEveryN)
	}
	if d.BurstLoss < 0 || d.BurstLoss > maxBurstLoss {
		bad(kBurstLoss, "must be 0..%v ms, got %v", maxBurstLoss.Milliseconds(), ms(d.BurstLoss))
	}
	if d.ReorderWindow < 0 || d.ReorderWindow > maxReorderWindow {
		bad(kReorder, "must be 0..%v ms, got %v", maxReorderWindow.Milliseconds(), ms(d.ReorderWindow))
	}
	half := time.Duration(periodNs(rateHz) / 2)
	if d.Jitter < 0 || d.Jitter > half {
		bad(kJitter, "must be 0..%v ms (half the period at %v Hz, so packets never swap), got %v", ms(half), rateHz, ms(d.Jitter))
	}
}

// MarshalJSON writes the degradations under their keys, durations in
// milliseconds.
func (d degradations) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		LossProbability      float64 `json:"loss_probability"`
		LossEveryN           int     `json:"loss_every_n"`
		BurstLossMs          float64 `json:"burst_loss_ms"`
		DuplicateProbability float64 `json:"duplicate_probability"`
		ReorderWindowMs      float64 `json:"reorder_window_ms"`
		JitterMs             float64 `json:"jitter_ms"`
		Freeze               bool    `json:"freeze"`
		InvalidAz            bool    `json:"invalid_az"`
		InvalidEl            bool    `json:"invalid_el"`
		SeqJump              int32   `json:"seq_jump"`
		Silence              bool    `json:"silence"`
	}{
		d.LossProbability, d.LossEveryN, msf(d.BurstLoss), d.DuplicateProbability, msf(d.ReorderWindow),
		msf(d.Jitter), d.Freeze, d.InvalidAz, d.InvalidEl, d.SeqJump, d.Silence,
	})
}

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
