package rd100slink

import (
	"fmt"
	"math"
	"time"

	"github.com/streamerd/streamerd/datasource/rd100s/wire"
)

// SeqWindow is how many sequence numbers below the highest one the Monitor
// remembers (seen or not, and their t_us) to tell duplicates from late
// arrivals.
const SeqWindow = 1024

// Defaults of MonitorConfig.
const (
	DefaultStreamTimeout   = 100 * time.Millisecond // section 7: ten nominal periods
	DefaultNominalRate     = 100.0                  // Hz, section 1
	DefaultFreezePackets   = 10
	DefaultPeriodTolerance = 2 * time.Millisecond // section 1: ±2 ms jitter
)

// MonitorConfig configures a Monitor. Zero fields take the defaults above.
type MonitorConfig struct {
	// StreamTimeout declares the stream lost when no valid packet arrived
	// for this long (arrival time, section 7).
	StreamTimeout time.Duration
	// NominalRate is the emitter's cadence in Hz; the nominal period it
	// implies is the reference for period deviation and the histogram.
	NominalRate float64
	// FreezePackets is how many consecutive advancing packets with identical
	// az_mdeg and el_mdeg make a frozen-position event. Negative disables.
	FreezePackets int
	// PeriodTolerance is the admissible |period - nominal|; periods beyond it
	// are counted in PeriodStats.OutOfTolerance.
	PeriodTolerance time.Duration
}

// SeqClass is how Observe classified a datagram. The rules, with
// d = int32(seq - hi) the wrap-safe distance from the highest sequence
// number hi of the current tracking epoch and t, tHi their t_us:
//
//   - d == 1: InOrder. Only these packets feed the period statistics, with
//     t - tHi (and only when t > tHi).
//   - d > 1: Gap. One gap event, d-1 missing sequence numbers, counted at
//     detection time and never taken back (see Recovered).
//   - d <= 0 and seq was already seen in the window with the same t_us:
//     Duplicate.
//   - d < 0, seq inside the window and not seen, t < tHi, and t lies between
//     the t_us of the nearest seen sequence numbers around it: Reorder (a
//     late arrival). When no seen number below it remains in the epoch, t
//     must instead be at most 4 nominal periods per sequence step below its
//     upper neighbour. A late arrival of a number counted missing also
//     counts in Recovered, so Missing-Recovered is what was really lost.
//   - otherwise, t >= tHi: JumpBack. The emitter moved seq back while its
//     clock advanced (an injected sequence jump, not a restart).
//   - otherwise (t < tHi): Restart. seq and t_us went back together
//     (section 2): the emitter restarted.
//
// Restart and JumpBack start a new tracking epoch at this packet: the
// window is cleared and the next packet is compared with this one. Restart
// also restarts freeze tracking. A forward jump (d > 1) is always a Gap,
// whatever t_us does; d > 0 with t < tHi is additionally counted in
// TimeBackwards. The classification depends only on the packets, never on
// arrival times, so counts are exact and deterministic.
type SeqClass uint8

// Classes returned by Monitor.Observe.
const (
	ClassDiscarded SeqClass = iota // failed a section 4 check
	ClassFirst                     // first valid packet seen
	ClassInOrder
	ClassGap
	ClassDuplicate
	ClassReorder
	ClassRestart
	ClassJumpBack
)

var classNames = [...]string{"discarded", "first", "in-order", "gap", "duplicate", "reorder", "restart", "jump-back"}

func (c SeqClass) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "invalid"
}

// Stats is a snapshot of a Monitor's counters. All counts are cumulative
// since NewMonitor.
type Stats struct {
	Datagrams      uint64 `json:"datagrams"`       // everything given to Observe
	Packets        uint64 `json:"packets"`         // datagrams that passed section 4 (every class but discarded)
	DiscardSize    uint64 `json:"discard_size"`    // length != 36
	DiscardMagic   uint64 `json:"discard_magic"`   // magic != 0x5244
	DiscardVersion uint64 `json:"discard_version"` // version != 1

	InOrder       uint64 `json:"in_order"`       // d == 1
	GapEvents     uint64 `json:"gap_events"`     // d > 1
	Missing       uint64 `json:"missing"`        // sum of d-1 over gap events
	Recovered     uint64 `json:"recovered"`      // reorders that filled a number counted in Missing
	Duplicates    uint64 `json:"duplicates"`     // see SeqClass
	Reorders      uint64 `json:"reorders"`       // late arrivals
	Restarts      uint64 `json:"restarts"`       // seq and t_us back together
	JumpsBack     uint64 `json:"jumps_back"`     // seq back while t_us advances
	TimeBackwards uint64 `json:"time_backwards"` // seq advances while t_us goes back
	TimeJumps     uint64 `json:"time_jumps"`     // in-order packets whose t_us step exceeds MaxPeriodSteps nominal periods (left out of Period)

	Timeouts uint64 `json:"timeouts"`  // times the stream was declared lost
	TimedOut bool   `json:"timed_out"` // no valid packet for StreamTimeout, as of the last Tick/Observe

	Period PeriodStats `json:"period"` // from t_us of consecutive in-order packets

	FrozenEvents uint64 `json:"frozen_events"` // runs of FreezePackets identical positions
	Frozen       bool   `json:"frozen"`        // the current run is at least FreezePackets long

	// Per-packet status counts over every valid packet (duplicates included).
	AzInvalid uint64 `json:"az_invalid"` // AZ_VALID clear
	ElInvalid uint64 `json:"el_invalid"` // EL_VALID clear
	AzFault   uint64 `json:"az_fault"`
	ElFault   uint64 `json:"el_fault"`
	Sim       uint64 `json:"sim"`      // SIM set
	Degraded  uint64 `json:"degraded"` // DEGRADED set

	HaveLast    bool        `json:"have_last"`
	Last        wire.Packet `json:"last"`         // last valid packet, any class
	LastArrival time.Time   `json:"last_arrival"` // its arrival time
}

// Monitor tracks the quality of one RD100S-ENC-UDP stream on the receiver
// side (section 7). It is not safe for concurrent use: one goroutine feeds
// it datagrams with Observe, calls Tick when nothing arrives, and reads it
// with Snapshot. Observe, Tick and Snapshot do not allocate.
type Monitor struct {
	cfg   MonitorConfig
	scale periodScale

	s Stats

	tracking bool
	hi       uint32 // highest seq of the epoch
	hiT      uint64 // its t_us
	base     uint32 // first seq of the epoch
	seen     [SeqWindow / 64]uint64
	tus      [SeqWindow]uint64

	refAz, refEl int32
	run          int

	total, interval periodAcc
}

// Validate reports a field NewMonitor would replace by its default although
// it is not zero: a negative duration, or a rate that is negative, NaN or
// infinite. The zero value of every field means its default.
func (c MonitorConfig) Validate() error {
	switch {
	case c.StreamTimeout < 0:
		return fmt.Errorf("rd100s/client: StreamTimeout %v is negative", c.StreamTimeout)
	case c.NominalRate < 0 || math.IsNaN(c.NominalRate) || math.IsInf(c.NominalRate, 0):
		return fmt.Errorf("rd100s/client: NominalRate %v Hz is not a positive finite rate", c.NominalRate)
	case c.PeriodTolerance < 0:
		return fmt.Errorf("rd100s/client: PeriodTolerance %v is negative", c.PeriodTolerance)
	}
	return nil
}

// NewMonitor returns a Monitor with cfg's zero fields set to the defaults,
// and any field Validate refuses too.
func NewMonitor(cfg MonitorConfig) *Monitor {
	if cfg.StreamTimeout <= 0 {
		cfg.StreamTimeout = DefaultStreamTimeout
	}
	if !(cfg.NominalRate > 0) || math.IsInf(cfg.NominalRate, 0) {
		cfg.NominalRate = DefaultNominalRate
	}
	if cfg.FreezePackets == 0 {
		cfg.FreezePackets = DefaultFreezePackets
	}
	if cfg.PeriodTolerance <= 0 {
		cfg.PeriodTolerance = DefaultPeriodTolerance
	}
	m := &Monitor{cfg: cfg}
	m.scale = newPeriodScale(1e6/cfg.NominalRate, uint64(cfg.PeriodTolerance/time.Microsecond))
	return m
}

// Config returns the configuration with defaults applied.
func (m *Monitor) Config() MonitorConfig { return m.cfg }

// Packets returns the number of valid packets observed so far.
func (m *Monitor) Packets() uint64 { return m.s.Packets }

// Observe accounts one datagram that arrived at arrival (use a time with a
// monotonic reading, such as time.Now()). Datagrams failing section 4 are
// counted by reason and otherwise ignored. If the previous valid packet
// arrived StreamTimeout or more before this one and no Tick declared the
// timeout yet, Observe counts it, so a silence is never missed for lack of
// ticks. datagram is not retained.
func (m *Monitor) Observe(datagram []byte, arrival time.Time) SeqClass {
	m.s.Datagrams++
	p, err := wire.ParsePacket(datagram)
	switch err {
	case nil:
	case wire.ErrSize:
		m.s.DiscardSize++
		return ClassDiscarded
	case wire.ErrMagic:
		m.s.DiscardMagic++
		return ClassDiscarded
	default:
		m.s.DiscardVersion++
		return ClassDiscarded
	}
	m.s.Packets++
	if m.s.HaveLast {
		m.Tick(arrival)
	}
	m.s.TimedOut = false
	m.s.HaveLast = true
	m.s.Last = p
	m.s.LastArrival = arrival

	st := p.Status
	if st&wire.AzValid == 0 {
		m.s.AzInvalid++
	}
	if st&wire.ElValid == 0 {
		m.s.ElInvalid++
	}
	if st&wire.AzFault != 0 {
		m.s.AzFault++
	}
	if st&wire.ElFault != 0 {
		m.s.ElFault++
	}
	if st&wire.Sim != 0 {
		m.s.Sim++
	}
	if st&wire.Degraded != 0 {
		m.s.Degraded++
	}
	return m.classify(&p)
}

// Tick declares the stream lost if no valid packet arrived in the
// StreamTimeout before now. Each silence counts once, and only after a
// first valid packet. Call it periodically (Receiver does, every quarter of
// the timeout by default).
func (m *Monitor) Tick(now time.Time) {
	if m.s.HaveLast && !m.s.TimedOut && now.Sub(m.s.LastArrival) >= m.cfg.StreamTimeout {
		m.s.TimedOut = true
		m.s.Timeouts++
	}
}

// Snapshot returns the counters, with period statistics over the whole run.
func (m *Monitor) Snapshot() Stats {
	s := m.s
	s.Period = m.total.stats(&m.scale)
	return s
}

// TakeIntervalPeriod returns the period statistics accumulated since the
// previous call (or NewMonitor) and starts a new interval.
func (m *Monitor) TakeIntervalPeriod() PeriodStats {
	ps := m.interval.stats(&m.scale)
	m.interval = periodAcc{}
	return ps
}

func (m *Monitor) classify(p *wire.Packet) SeqClass {
	if !m.tracking {
		m.startEpoch(p)
		m.resetFreeze(p)
		return ClassFirst
	}
	d := int32(p.Seq - m.hi)
	if d > 0 {
		c := ClassInOrder
		if d == 1 {
			m.s.InOrder++
			if p.TUs > m.hiT {
				m.addPeriod(p.TUs - m.hiT)
			}
		} else {
			c = ClassGap
			m.s.GapEvents++
			m.s.Missing += uint64(d - 1)
		}
		if p.TUs < m.hiT {
			m.s.TimeBackwards++
		}
		m.advance(p, uint32(d))
		m.trackFreeze(p)
		return c
	}
	if back := uint32(-int64(d)); back < SeqWindow {
		if m.isSeen(p.Seq) {
			if m.tus[p.Seq%SeqWindow] == p.TUs {
				m.s.Duplicates++
				return ClassDuplicate
			}
		} else if p.TUs < m.hiT && m.plausibleLate(p.Seq, p.TUs) {
			m.s.Reorders++
			m.mark(p.Seq, p.TUs)
			if int32(p.Seq-m.base) > 0 {
				m.s.Recovered++
			}
			return ClassReorder
		}
	}
	if p.TUs >= m.hiT {
		m.s.JumpsBack++
		m.startEpoch(p)
		m.trackFreeze(p)
		return ClassJumpBack
	}
	m.s.Restarts++
	m.startEpoch(p)
	m.resetFreeze(p)
	return ClassRestart
}

// isSeen reports whether seq is inside the window and was received.
func (m *Monitor) isSeen(seq uint32) bool {
	if m.hi-seq >= SeqWindow {
		return false
	}
	i := seq % SeqWindow
	return m.seen[i/64]&(1<<(i%64)) != 0
}

func (m *Monitor) mark(seq uint32, tus uint64) {
	i := seq % SeqWindow
	m.seen[i/64] |= 1 << (i % 64)
	m.tus[i] = tus
}

func (m *Monitor) unmark(seq uint32) {
	i := seq % SeqWindow
	m.seen[i/64] &^= 1 << (i % 64)
}

func (m *Monitor) startEpoch(p *wire.Packet) {
	m.tracking = true
	m.seen = [SeqWindow / 64]uint64{}
	m.hi, m.hiT, m.base = p.Seq, p.TUs, p.Seq
	m.mark(p.Seq, p.TUs)
}

// advance moves the window head forward by d to p.Seq; the numbers skipped
// become "not seen".
func (m *Monitor) advance(p *wire.Packet, d uint32) {
	if d >= SeqWindow {
		m.seen = [SeqWindow / 64]uint64{}
	} else {
		for k := uint32(1); k < d; k++ {
			m.unmark(m.hi + k)
		}
	}
	m.hi, m.hiT = p.Seq, p.TUs
	m.mark(p.Seq, p.TUs)
}

// plausibleLate reports whether an unseen seq below hi carrying t fits
// between its nearest received neighbours. The caller ensured t < hiT.
func (m *Monitor) plausibleLate(seq uint32, t uint64) bool {
	// Upper neighbour: hi is always seen, so the loop ends.
	up := seq + 1
	for !m.isSeen(up) {
		up++
	}
	tUp := m.tus[up%SeqWindow]
	if t >= tUp {
		return false
	}
	for x := seq - 1; m.hi-x < SeqWindow && int32(x-m.base) >= 0; x-- {
		if m.isSeen(x) {
			return t > m.tus[x%SeqWindow]
		}
	}
	return float64(tUp-t) <= float64(up-seq)*4*m.scale.nominalUs
}

func (m *Monitor) resetFreeze(p *wire.Packet) {
	m.refAz, m.refEl, m.run = p.AzMdeg, p.ElMdeg, 1
	m.s.Frozen = false
}

// trackFreeze counts the run of consecutive advancing packets with an
// identical position; a run reaching FreezePackets is one frozen event.
func (m *Monitor) trackFreeze(p *wire.Packet) {
	if m.cfg.FreezePackets < 0 {
		return
	}
	if p.AzMdeg != m.refAz || p.ElMdeg != m.refEl {
		m.resetFreeze(p)
		return
	}
	m.run++
	if m.run == m.cfg.FreezePackets {
		m.s.FrozenEvents++
		m.s.Frozen = true
	}
}

// addPeriod takes the t_us step of an in-order packet: a period, or a jump
// of the emitter's clock when longer than MaxPeriodSteps nominal periods.
func (m *Monitor) addPeriod(us uint64) {
	if us > m.scale.maxUs {
		m.s.TimeJumps++
		return
	}
	m.total.add(us, &m.scale)
	m.interval.add(us, &m.scale)
}
