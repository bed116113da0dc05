package rd100s

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/internal/rules"
	"github.com/streamerd/streamerd/datasource/rd100s/wire"
	"github.com/streamerd/streamerd/rt/cpu"
	"github.com/streamerd/streamerd/rt/rtsync"
)

// ReorderCapacity is how many packets the reorder window can hold back.
const reorderCapacity = 1024

// maxSleep bounds one sleep of the network thread so Stop is prompt at
// low rates.
const maxSleep = 20 * time.Millisecond

// sigRef locates a mapped signal in signal memory.
type sigRef struct {
	off, end int
	typ      datasource.Type
	unit     unit
	ok       bool
}

type sigRefs struct{ az, el, azRate, elRate, status sigRef }

func newSigRefs(c *Config) sigRefs {
	off := make([]int, len(c.Signals)+1)
	for i := range c.Signals {
		off[i+1] = off[i] + c.Signals[i].ByteSize()
	}
	names := rules.Names(c.Signals)
	ref := func(name, text string) sigRef {
		u, _ := parseUnit(text) // validated by New
		i, ok := names[name]
		if name == "" || !ok {
			return sigRef{}
		}
		return sigRef{off: off[i], end: off[i+1], typ: c.Signals[i].Type, unit: u, ok: true}
	}
	return sigRefs{
		az:     ref(c.AzimuthSignal, c.AzimuthUnit),
		el:     ref(c.ElevationSignal, c.ElevationUnit),
		azRate: ref(c.AzRateSignal, c.RateUnit),
		elRate: ref(c.ElRateSignal, c.RateUnit),
		status: ref(c.StatusSignal, "mdeg"),
	}
}

// readInt reads an integer signal; uint64 beyond int64 saturates.
func readInt(b []byte, t datasource.Type) int64 {
	if t.IsFloat() {
		return roundSat(readFloat(b, t))
	}
	raw := t.Raw(b, binary.NativeEndian)
	if t == datasource.Uint64 {
		return int64(min(raw, math.MaxInt64))
	}
	return int64(raw)
}

// readFloat reads a signal as a float64.
func readFloat(b []byte, t datasource.Type) float64 {
	return t.Float64(t.Raw(b, binary.NativeEndian))
}

// roundSat rounds to nearest, halves away from zero; NaN is 0 and values
// beyond int64 saturate.
func roundSat(v float64) int64 {
	v = math.Round(v)
	switch {
	case v != v:
		return 0
	case v >= math.MaxInt64:
		return math.MaxInt64
	case v <= math.MinInt64:
		return math.MinInt64
	}
	return int64(v)
}

// degreesToMdeg converts degrees to millidegrees, rounding to nearest with
// halves away from zero. NaN converts to 0; values beyond the int64 range,
// including ±Inf, saturate to math.MinInt64 and math.MaxInt64. Callers
// narrow the result to int32 with wire.NormalizeAzimuthMdeg (azimuth) or
// their own clamp (elevation, rates).
func degreesToMdeg(deg float64) int64 { return roundSat(deg * 1000) }

// mdeg reads the signal in millidegrees (or mdeg/s); 0 when unmapped.
func (r *sigRef) mdeg(snap []byte) int64 {
	if !r.ok {
		return 0
	}
	b := snap[r.off:r.end]
	if r.unit == millidegrees {
		if r.typ.IsFloat() {
			return roundSat(readFloat(b, r.typ))
		}
		return readInt(b, r.typ)
	}
	return degreesToMdeg(readFloat(b, r.typ))
}

// finite reports whether the signal holds a usable number: true when it is
// unmapped or an integer, false for a float NaN or ±Inf.
func (r *sigRef) finite(snap []byte) bool {
	if !r.ok || !r.typ.IsFloat() {
		return true
	}
	v := readFloat(snap[r.off:r.end], r.typ)
	return !math.IsNaN(v) && !math.IsInf(v, 0)
}

func clamp32(v int64) int32 { return int32(min(max(v, math.MinInt32), math.MaxInt32)) }

// heldPkt is a packet held back by the reorder window.
type heldPkt struct {
	due int64
	seq uint32
	dup bool
	b   [wire.PacketSize]byte
}

// emitter is the network thread's state. Only the network thread touches
// it, except the tests, which drive run directly.
type emitter struct {
	e       *Encoder
	origin  int64
	periodF float64
	refs    sigRefs
	base    wire.Status // status bits 0..5 when no status signal

	k      uint64 // index of the next tick on the grid
	target int64  // its (jittered) instant
	seq    uint32 // seq of the next tick
	snap   []byte
	buf    [wire.PacketSize]byte

	// Degradation state, copied from control when its gen moves.
	gen          uint64
	d            degradations
	degradedBase bool // a persistent degradation is on
	burstActive  bool
	burstSerial  uint64
	burstUntil   int64
	burstEnded   uint64 // serial of a burst that elapsed, not yet recorded
	burstEndedAt int64
	jump         int32 // to apply at this tick
	lossCount    int
	capture      bool
	held         [4]int32 // az, el, az rate, el rate while frozen
	lastGood     [4]int32 // az, el, az rate, el rate of the last finite readings
	rLoss, rDup  rng
	rReorder     rng
	rJitter      rng

	// Reorder window: a binary min-heap on (due, seq).
	heap    []heldPkt
	maxSent uint32
	sentAny bool

	// lateness, when a test or benchmark sets it, receives now - target of
	// each tick until full.
	lateness []int64
}

func newEmitter(e *Encoder) *emitter {
	c := &e.cfg
	em := &emitter{
		e:        e,
		origin:   e.origin,
		periodF:  e.periodNs,
		refs:     e.refs,
		target:   e.origin,
		seq:      c.FirstSeq,
		snap:     make([]byte, len(e.ready)),
		rLoss:    newRng(c.Seed, kLossProbability),
		rDup:     newRng(c.Seed, kDuplicate),
		rReorder: newRng(c.Seed, kReorder),
		rJitter:  newRng(c.Seed, kJitter),
		heap:     make([]heldPkt, 0, reorderCapacity),
	}
	em.base = c.Status & (wire.AzValid | wire.ElValid | wire.AzRefOK | wire.ElRefOK | wire.AzFault | wire.ElFault)
	return em
}

// loop is the network thread's body. It first sets the thread's timer
// slack to 1 ns (the default 50 µs would be added to every deadline); the
// setting dies with the thread.
func (em *emitter) loop(stop <-chan struct{}) {
	_ = cpu.SetTimerSlack(1)
	for {
		select {
		case <-stop:
			return
		default:
		}
		t := em.next()
		now := monoNow()
		if t > now {
			sleepUntil(min(t, now+int64(maxSleep)))
			now = monoNow()
		}
		em.run(now)
	}
}

// nominal returns the instant of tick k on the grid.
func (em *emitter) nominal(k uint64) int64 {
	return em.origin + int64(float64(k)*em.periodF)
}

// next returns when run has something to do: the next tick or the next
// held packet due.
func (em *emitter) next() int64 {
	t := em.target
	if len(em.heap) > 0 && em.heap[0].due < t {
		t = em.heap[0].due
	}
	return t
}

// run does everything due at monotonic time now: it sends the held packets
// due, then emits the tick if its instant has come.
func (em *emitter) run(now int64) {
	em.e.watchTick(now)
	em.release(now)
	if now < em.target {
		return
	}
	if now >= em.nominal(em.k+1)+int64(em.d.Jitter) {
		// A whole period late: skip to the newest tick due.
		if kl := uint64(float64(now-em.origin) / em.periodF); kl > em.k {
			em.e.m.ticksMissed.Add(int(kl - em.k))
			em.k = kl
		}
	}
	if len(em.lateness) < cap(em.lateness) {
		em.lateness = append(em.lateness, now-em.target)
	}
	em.tick(now)
	em.k++
	em.target = em.nominal(em.k)
	if j := int64(em.d.Jitter); j > 0 {
		em.target += em.rJitter.upTo(2*j) - j
		em.e.m.jittered.Inc()
	}
}

// syncControl picks up operator changes and records a burst that elapsed,
// if the control lock is free; otherwise it tries again at the next tick.
func (em *emitter) syncControl(now int64) {
	c := &em.e.ctl
	gen := c.gen.Load()
	if gen == em.gen && em.burstEnded == 0 {
		return
	}
	if !c.mu.TryLock() {
		return
	}
	defer c.mu.Unlock()
	if em.burstEnded != 0 {
		if c.burstActive && c.burstSerial == em.burstEnded {
			c.burstActive = false
			c.d.BurstLoss = 0
			em.e.recordFromEmitter(event{Time: time.Now(), TUs: em.e.tUs(em.burstEndedAt), Degradation: kindNames[kBurstLoss],
				Action: deactivated, Source: "emitter", Reason: "elapsed"})
		}
		em.burstEnded = 0
	}
	if gen == em.gen {
		return
	}
	em.gen = gen
	prev := em.d
	em.d = c.d
	if c.burstActive && c.burstSerial != em.burstSerial {
		em.burstSerial, em.burstUntil, em.burstActive = c.burstSerial, c.burstUntil, true
	}
	if !c.burstActive {
		em.burstActive = false
	}
	if c.d.SeqJump != 0 {
		em.jump = c.d.SeqJump
		c.d.SeqJump = 0
		em.e.recordFromEmitter(event{Time: time.Now(), TUs: em.e.tUs(now), Degradation: kindNames[kSeqJump],
			Action: deactivated, Source: "emitter", Reason: "applied", Seq: em.seq + uint32(em.jump)})
	}
	em.d.BurstLoss, em.d.SeqJump = 0, 0
	em.degradedBase = em.d.anyActive()
	if em.d.LossEveryN != prev.LossEveryN {
		em.lossCount = 0
	}
	if em.d.Freeze && !prev.Freeze {
		em.capture = true
	}
}

// tick builds the packet of the current tick and sends, drops or holds it.
func (em *emitter) tick(now int64) {
	e := em.e
	em.syncControl(now)
	if em.burstActive && now >= em.burstUntil {
		em.burstActive = false
		em.burstEnded, em.burstEndedAt = em.burstSerial, em.burstUntil
		em.syncControl(now)
	}
	seq, jumped := em.nextSeq(now)
	e.m.ticks.Inc()

	e.lock.FastLock(rtsync.Forever, 0)
	copy(em.snap, e.ready)
	have := e.haveData
	e.lock.FastUnLock()

	p := wire.Packet{Seq: seq, TUs: e.tUs(now)}
	azFinite, elFinite := em.position(&p)
	p.Status = em.status(have && azFinite, have && elFinite, jumped)
	wire.AppendPacket(em.buf[:0], &p)
	if em.dropped() {
		return
	}
	dup := em.rDup.chance(em.d.DuplicateProbability)
	if w := int64(em.d.ReorderWindow); w > 0 {
		if delay := em.rReorder.upTo(w); delay > 0 {
			em.hold(now+delay, seq, dup)
			return
		}
	}
	em.send(em.buf[:], seq, dup)
}

// nextSeq returns the seq of the tick at now, after a restart or a pending
// jump, and whether it jumped.
func (em *emitter) nextSeq(now int64) (seq uint32, jumped bool) {
	e := em.e
	if e.restartReq.Swap(false) {
		em.seq = e.cfg.FirstSeq
		e.tZero.Store(now)
	}
	seq = em.seq
	if jumped = em.jump != 0; jumped {
		seq += uint32(em.jump)
		em.jump = 0
		em.sentAny = false
		e.m.seqJumps.Inc()
	}
	em.seq = seq + 1
	e.nextSeq.Store(em.seq)
	return seq, jumped
}

// position fills the angles and rates of p from the snapshot of signal
// memory. A NaN or infinite reading is no position: the axis goes out with
// its last good values and reports false, so its VALID bit is cleared and
// no receiver takes an invented angle for a reading (section 3). A freeze
// holds the values it found.
func (em *emitter) position(p *wire.Packet) (azFinite, elFinite bool) {
	e, r := em.e, &em.refs
	az := wire.NormalizeAzimuthMdeg(r.az.mdeg(em.snap))
	el := clamp32(r.el.mdeg(em.snap))
	azRate := clamp32(r.azRate.mdeg(em.snap))
	elRate := clamp32(r.elRate.mdeg(em.snap))
	azFinite = r.az.finite(em.snap) && r.azRate.finite(em.snap)
	elFinite = r.el.finite(em.snap) && r.elRate.finite(em.snap)
	if azFinite {
		em.lastGood[0], em.lastGood[2] = az, azRate
	} else {
		az, azRate = em.lastGood[0], em.lastGood[2]
		e.m.nonFinite.Inc()
	}
	if elFinite {
		em.lastGood[1], em.lastGood[3] = el, elRate
	} else {
		el, elRate = em.lastGood[1], em.lastGood[3]
		e.m.nonFinite.Inc()
	}
	if em.d.Freeze {
		if em.capture {
			em.held = [4]int32{az, el, azRate, elRate}
			em.capture = false
		}
		az, el, azRate, elRate = em.held[0], em.held[1], em.held[2], em.held[3]
		e.m.frozen.Inc()
	}
	p.AzMdeg, p.ElMdeg, p.AzRate, p.ElRate = az, el, azRate, elRate
	return azFinite, elFinite
}

// status returns the status word: the status signal's bits or the
// constants, SIM, VALID cleared for an axis without a usable reading or
// invalidated, DEGRADED while a degradation shows in the stream.
func (em *emitter) status(azOK, elOK, jumped bool) wire.Status {
	r := &em.refs
	st := em.base
	if r.status.ok {
		st = wire.Status(readInt(em.snap[r.status.off:r.status.end], r.status.typ)) & 0x3f
	}
	st |= wire.Sim
	if !azOK || em.d.InvalidAz {
		st &^= wire.AzValid
	}
	if !elOK || em.d.InvalidEl {
		st &^= wire.ElValid
	}
	if em.degradedBase || em.burstActive || jumped {
		st |= wire.Degraded
	}
	return st
}

// dropped reports whether the packet of this tick is not sent: silence, a
// burst, or a loss; each is counted.
func (em *emitter) dropped() bool {
	e := em.e
	switch {
	case em.d.Silence:
		e.m.silenced.Inc()
		return true
	case em.burstActive:
		e.m.droppedBurst.Inc()
		return true
	}
	if n := em.d.LossEveryN; n > 0 {
		em.lossCount++
		if em.lossCount >= n {
			em.lossCount = 0
			e.m.droppedLoss.Inc()
			return true
		}
	}
	if em.rLoss.chance(em.d.LossProbability) {
		e.m.droppedLoss.Inc()
		return true
	}
	return false
}

// send writes one packet, twice if dup, and counts what a receiver will
// see as late arrivals.
func (em *emitter) send(b []byte, seq uint32, dup bool) {
	e := em.e
	if err := e.sendWatched(b); err != nil {
		e.m.sendErrors.Inc()
		return
	}
	e.m.sent.Inc()
	if em.sentAny && int32(seq-em.maxSent) < 0 {
		e.m.reordered.Inc()
	} else {
		em.maxSent, em.sentAny = seq, true
	}
	if !dup {
		return
	}
	if err := e.sendWatched(b); err != nil {
		e.m.sendErrors.Inc()
		return
	}
	e.m.sent.Inc()
	e.m.duplicated.Inc()
}

// hold puts the packet in em.buf in the reorder window until due. When the
// window is full, the packet due first leaves now.
func (em *emitter) hold(due int64, seq uint32, dup bool) {
	if len(em.heap) == cap(em.heap) {
		em.e.m.reorderOvf.Inc()
		em.sendHeld(em.pop())
	}
	em.heap = em.heap[:len(em.heap)+1]
	h := &em.heap[len(em.heap)-1]
	h.due, h.seq, h.dup, h.b = due, seq, dup, em.buf
	em.up(len(em.heap) - 1)
	em.e.m.delayed.Inc()
}

// release sends the held packets due at now, earliest first.
func (em *emitter) release(now int64) {
	for len(em.heap) > 0 && em.heap[0].due <= now {
		em.sendHeld(em.pop())
	}
}

// sendHeld sends the packet popped into the spare slot past the heap's
// length.
func (em *emitter) sendHeld(i int) {
	h := &em.heap[:i+1][i]
	if em.d.Silence {
		em.e.m.silenced.Inc()
		return
	}
	em.send(h.b[:], h.seq, h.dup)
}

func less(a, b *heldPkt) bool {
	return a.due < b.due || (a.due == b.due && int32(a.seq-b.seq) < 0)
}

// pop removes the earliest packet and returns its index in the backing
// array, just past the new length, where it stays valid until the next
// hold.
func (em *emitter) pop() int {
	h := em.heap
	n := len(h) - 1
	h[0], h[n] = h[n], h[0]
	em.heap = h[:n]
	em.down(0)
	return n
}

func (em *emitter) up(i int) {
	h := em.heap
	for i > 0 {
		p := (i - 1) / 2
		if !less(&h[i], &h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (em *emitter) down(i int) {
	h := em.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && less(&h[r], &h[l]) {
			m = r
		}
		if !less(&h[m], &h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
