package rd100s

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamerd/streamerd/datasource/internal/rules"
)

// EventRing is how many recent events StatusReport keeps.
const eventRing = 128

// logQueue bounds the events the network thread hands to the logging
// goroutine; past it an event is kept in the ring and counted, not logged.
const logQueue = 64

// Event actions.
const (
	activated   = "activated"
	deactivated = "deactivated"
	changed     = "changed" // new value of a degradation that stays active
)

// Event is one activation, deactivation or change of a degradation.
type event struct {
	Time        time.Time `json:"time"` // wall clock, for humans
	TUs         uint64    `json:"t_us"` // the emitter clock, comparable with packets' t_us
	Degradation string    `json:"degradation"`
	Action      string    `json:"action"`          // Activated, Deactivated or Changed
	Value       string    `json:"value,omitempty"` // the parameter as its key takes it
	// Source is "config", "operator" (Set) or "emitter"
	// (a burst that elapsed, a seq jump applied).
	Source string `json:"source"`
	// Reason qualifies a deactivation: "elapsed", "applied", "replaced"
	// (a new burst or jump replaced a running one) or "cancelled".
	Reason string `json:"reason,omitempty"`
	// Seq is the seq of the packet that carried an applied seq jump.
	Seq uint32 `json:"seq,omitempty"`
}

// control is the degradation state shared by the operator and the network
// thread. Operators lock mu; the network thread only try-locks it, so it
// never waits, and re-reads the state when gen moved.
type control struct {
	mu  sync.Mutex
	gen atomic.Uint64

	// d is the operator's state. d.BurstLoss is the length of the burst in
	// progress (0: none) and d.SeqJump the jump not yet applied.
	d           degradations
	burstActive bool
	burstSerial uint64
	burstUntil  int64 // CLOCK_MONOTONIC ns

	ring  [eventRing]event
	next  int // where the next event goes
	count int
}

type kindSet [numKinds]bool

var allKinds = func() (s kindSet) {
	for k := range s {
		s[k] = true
	}
	return s
}()

// setDegradations replaces the whole degradation state: every field of d is
// applied as Set would apply its key. BurstLoss > 0 starts a burst of that
// length now (replacing one in progress) and 0 ends one; SeqJump != 0
// schedules a jump at the next packet (replacing a pending one) and 0
// cancels a pending one. It returns every broken range as a
// *datasource.ConfigError, or an error when the encoder is not running
// (datasource.ErrClosed after Close).
func (e *Encoder) setDegradations(d degradations) error {
	return e.apply(d, allKinds, "operator", monoNow())
}

// Set sets one degradation from its key and text value: loss_probability,
// loss_every_n, burst_loss_ms, duplicate_probability, reorder_window_ms,
// jitter_ms, freeze, invalid_az, invalid_el, seq_jump, silence
// (docs/rd100s.md, section 6). Probabilities are numbers 0..1, durations
// milliseconds ("50", "0.5") or Go durations ("50ms"), bools
// true/false/on/off/1/0, seq_jump and loss_every_n integers. The others
// are left as they are. The key "restart" with the value "true" simulates
// a restart of the emitter at its next packet. It returns every broken
// range as a *datasource.ConfigError, or an error when the encoder is not
// running (datasource.ErrClosed after Close). It is what the
// daemon's HTTP endpoint calls.
func (e *Encoder) Set(key, value string) error {
	if !e.made() {
		return notMade("Set")
	}
	if key == restartKey {
		return e.restart(value)
	}
	k, ok := kindOfKey(key)
	if !ok {
		return unknownKey(key)
	}
	var next degradations
	if err := next.setKey(key, value); err != nil {
		return err
	}
	var which kindSet
	which[k] = true
	e.ctl.mu.Lock()
	cur := e.ctl.d
	e.ctl.mu.Unlock()
	copyKind(&cur, &next, k)
	return e.apply(cur, which, "operator", monoNow())
}

// RestartKey is the operator action, beside the degradations, that
// simulates a restart of the emitter: at its next packet seq starts again
// at first_seq and t_us at 0, both going back together, which is how
// section 2 says a receiver recognises a restart (a seq_jump alone moves
// only seq). It is one-shot and recorded as an event with Action Applied.
const restartKey = "restart"

// Applied is the Action of a one-shot operator action (restart).
const applied = "applied"

func (e *Encoder) restart(value string) error {
	if v, err := strconv.ParseBool(value); err != nil || !v {
		return fmt.Errorf("rd100s: restart: want true, got %q", value)
	}
	if !e.running() {
		return e.notRunning()
	}
	ev := event{Time: time.Now(), TUs: e.tUs(monoNow()), Degradation: restartKey, Action: applied, Source: "operator", Seq: e.cfg.FirstSeq}
	e.ctl.mu.Lock()
	e.recordLocked(&ev)
	e.ctl.mu.Unlock()
	e.logEvent(&ev)
	e.m.restarts.Inc()
	e.restartReq.Store(true)
	return nil
}

// state returns the current degradations; BurstLoss is the time left of
// a burst in progress and SeqJump a jump not applied yet.
func (e *Encoder) state() degradations {
	now := monoNow()
	e.ctl.mu.Lock()
	defer e.ctl.mu.Unlock()
	d := e.ctl.d
	d.BurstLoss = 0
	if e.ctl.burstActive {
		d.BurstLoss = max(time.Duration(e.ctl.burstUntil-now), time.Nanosecond)
	}
	return d
}

// events returns the recent events, oldest first (at most EventRing).
func (e *Encoder) events() []event {
	e.ctl.mu.Lock()
	defer e.ctl.mu.Unlock()
	c := &e.ctl
	out := make([]event, 0, c.count)
	for i := range c.count {
		out = append(out, c.ring[(c.next-c.count+i+eventRing)%eventRing])
	}
	return out
}

// apply validates next and applies the kinds in which at monotonic time
// now, recording one event per change.
func (e *Encoder) apply(next degradations, which kindSet, source string, now int64) error {
	if !e.running() {
		return e.notRunning()
	}
	ce := &rules.ConfigErrors{DataSource: e.cfg.Name}
	if next.check(ce, e.cfg.RateHz); ce.Len() > 0 {
		return ce.Err()
	}
	wall := time.Now()
	ev := func(k kind, action, value, reason string) event {
		return event{Time: wall, TUs: e.tUs(now), Degradation: kindNames[k], Action: action, Value: value, Source: source, Reason: reason}
	}
	var evs []event
	c := &e.ctl
	c.mu.Lock()
	cur := &c.d
	for k := range numKinds {
		if !which[k] {
			continue
		}
		switch k {
		case kBurstLoss:
			if next.BurstLoss > 0 {
				if c.burstActive {
					evs = append(evs, ev(k, deactivated, "", "replaced"))
				}
				c.burstActive = true
				c.burstSerial++
				c.burstUntil = now + int64(next.BurstLoss)
				cur.BurstLoss = next.BurstLoss
				evs = append(evs, ev(k, activated, next.value(k), ""))
			} else if c.burstActive {
				c.burstActive = false
				cur.BurstLoss = 0
				evs = append(evs, ev(k, deactivated, "", "cancelled"))
			}
		case kSeqJump:
			if next.SeqJump != 0 {
				if cur.SeqJump != 0 {
					evs = append(evs, ev(k, deactivated, "", "replaced"))
				}
				cur.SeqJump = next.SeqJump
				evs = append(evs, ev(k, activated, next.value(k), ""))
			} else if cur.SeqJump != 0 {
				cur.SeqJump = 0
				evs = append(evs, ev(k, deactivated, "", "cancelled"))
			}
		default:
			was, old := cur.active(k), cur.value(k)
			copyKind(cur, &next, k)
			is, v := cur.active(k), cur.value(k)
			switch {
			case !was && is:
				evs = append(evs, ev(k, activated, v, ""))
			case was && !is:
				evs = append(evs, ev(k, deactivated, "", ""))
			case was && is && v != old:
				evs = append(evs, ev(k, changed, v, ""))
			}
		}
	}
	for i := range evs {
		e.recordLocked(&evs[i])
	}
	c.gen.Add(1)
	c.mu.Unlock()
	for i := range evs {
		e.logEvent(&evs[i])
	}
	return nil
}

// recordLocked puts ev in the ring and counts it. ctl.mu is held. It does
// not allocate.
func (e *Encoder) recordLocked(ev *event) {
	c := &e.ctl
	c.ring[c.next] = *ev
	c.next = (c.next + 1) % eventRing
	c.count = min(c.count+1, eventRing)
	k, _ := kindOfName(ev.Degradation)
	switch ev.Action {
	case activated:
		e.m.activations[k].Inc()
	case deactivated:
		e.m.deactivations[k].Inc()
	}
}

func kindOfName(name string) (kind, bool) {
	for i, n := range kindNames {
		if n == name {
			return kind(i), true
		}
	}
	return 0, false
}

// recordFromEmitter records an event of the network thread (ctl.mu held)
// and hands it to the logging goroutine without waiting.
func (e *Encoder) recordFromEmitter(ev event) {
	e.recordLocked(&ev)
	select {
	case e.logCh <- ev:
	default:
		e.m.eventsUnlogged.Inc()
	}
}

func (e *Encoder) logEvents() {
	defer close(e.logDone)
	for {
		select {
		case ev, ok := <-e.logCh:
			if !ok {
				return
			}
			e.logEvent(&ev)
		case gone := <-e.reach:
			e.logReach(gone)
		}
	}
}

func (e *Encoder) logEvent(ev *event) {
	attrs := []any{"degradation", ev.Degradation, "source", ev.Source, "t_us", ev.TUs}
	if ev.Value != "" {
		attrs = append(attrs, "value", ev.Value)
	}
	if ev.Reason != "" {
		attrs = append(attrs, "reason", ev.Reason)
	}
	if ev.Degradation == kindNames[kSeqJump] && ev.Reason == "applied" {
		attrs = append(attrs, "seq", ev.Seq)
	}
	e.log.Info("degradation "+ev.Action, attrs...)
}
