package client

import "math"

// Period learning and skipped-cycle detection (docs/udpstreamer.md, "The Go
// client").
const (
	periodWindow     = 32      // spacings the period is the median of while it is learnt
	minPeriodSamples = 8       // spacings of each median: the first estimate, its confirmation, each check
	refineSlots      = 1024    // cycles over which the period is measured once it is known
	earlySlack       = 10      // an update may be up to 1/earlySlack period early on the grid
	maxSkipSlots     = 1 << 20 // a step of more cycles than this restarts the grid instead
	// A median of fresh spacings confirms the first estimate when it is
	// within period/checkBelow .. checkAbove·period; until the period is
	// measured on the grid, one below period/checkBelow (updates faster
	// than the period allows) has it learnt again.
	checkBelow = 2
	checkAbove = 4
	// maxLearningSkip: until the period is measured on the grid, an
	// update more than this many periods after the one before is taken
	// for a period learnt far too short (from a burst of updates stamped
	// microseconds apart), not for skipped cycles: the period is learnt
	// again. A stall that long in the first refineSlots cycles of a
	// session (a second at 1 kHz) goes uncounted.
	maxLearningSkip = 16
	// minRefineSpan: a measurement on the grid covers at least this much
	// of the server's clock as well as refineSlots cycles, so a burst of
	// thousands of updates stamped microseconds apart is never measured
	// as the period.
	minRefineSpan = 100_000_000 // ns
)

// cycleClock learns the server's cycle period from the hrtTimestamp spacing
// of consecutive updates, and counts the cycles missing between two updates
// beyond those the counter says were lost: cycles the server replaced
// before sending them (Stats.Skipped).
//
// The period is first the median of the spacings (each divided by the
// counter step) of the first minPeriodSamples updates. It is known, and
// skips are counted, once the median of the next minPeriodSamples agrees
// with it; otherwise it is taken from those and checked against the ones
// after. A session that begins during a burst of updates stamped
// microseconds apart (a server that stamps its updates when it sends them,
// catching up after a stall) would otherwise learn a period a thousand
// times too short and count a thousand skipped cycles per update. Until
// the period is measured on the grid, updates that come faster than it
// have it learnt again, and an update more than maxLearningSkip periods
// after the one before (after a burst long enough to be confirmed) starts
// the learning afresh. Once measured, the period is kept for the session:
// a later burst or a spell of heavy skipping is counted on it, and an
// update that comes a period or more early (a burst) restarts the
// measurement rather than shorten it.
//
// Each update is placed on a grid of that period anchored at the previous
// update's on-time instant: the server stamps an update when its RT thread
// runs, never earlier than the cycle's slot and normally much less than a
// period later, so the number of whole periods between the previous slot
// and this update, less one and less the lost updates, is the number of
// cycles skipped. An update earlier than its slot moves the grid to it; a
// late one pulls the grid by 1/16 of its lateness, so the grid follows a
// slow drift of either clock. Once on the grid, the period is measured
// again over every refineSlots cycles (and at least minRefineSpan), as the
// time they took on the grid divided by their number, which jitter hardly
// affects.
type cycleClock struct {
	spacing   [periodWindow]uint64 // ns, a ring
	n         int                  // spacings recorded, at most periodWindow
	next      int                  // ring index of the next spacing
	fresh     int                  // spacings recorded since the last median
	period    uint64               // ns; 0 until minPeriodSamples spacings
	confirmed bool                 // a later median agreed with period: skips are counted
	refined   bool                 // period comes from the grid, no longer from the median
	timing    bool                 // a measurement on the grid is under way
	anchor    uint64               // on-time hrt where it started
	slots     uint64               // cycles since anchor
	nominal   uint64               // on-time hrt of the previous update
	last      uint64               // hrt of the previous update
	started   bool
}

// reset forgets the period and the grid: a new session (the server may
// run at another rate), a resynchronised counter or a new CONFIG.
func (k *cycleClock) reset() { *k = cycleClock{} }

// known returns the period once it is confirmed, else 0.
func (k *cycleClock) known() uint64 {
	if !k.confirmed {
		return 0
	}
	return k.period
}

// step takes the hrtTimestamp of the next accepted update, which follows
// lost updates the counter says are missing, and returns the number of
// cycles skipped before it.
func (k *cycleClock) step(hrt uint64, lost uint32) uint32 {
	if !k.started || hrt <= k.last {
		k.started, k.last, k.nominal = true, hrt, hrt
		return 0
	}
	k.record((hrt - k.last) / (uint64(lost) + 1))
	k.last = hrt
	p := k.known()
	if p == 0 {
		k.nominal = hrt
		return 0
	}
	slots := (hrt - k.nominal + p/earlySlack) / p
	switch {
	case slots > maxSkipSlots:
		k.nominal, k.timing = hrt, false
		return 0
	case !k.refined && slots > maxLearningSkip:
		// The period was learnt from a burst: learn it again.
		k.period, k.confirmed, k.timing, k.n, k.fresh = 0, false, false, 0, 0
		k.nominal = hrt
		return 0
	case slots == 0:
		// A period or more early: one of a burst. Its slot is the next;
		// the time the burst took says nothing of the period.
		k.timing = false
	}
	slots = max(slots, 1)
	nom := k.nominal + slots*p
	if hrt < nom {
		nom = hrt
	} else {
		nom += (hrt - nom) / 16
	}
	k.nominal = nom
	k.refine(slots)
	if missing := slots - 1; missing > uint64(lost) {
		return uint32(min(missing-uint64(lost), math.MaxUint32))
	}
	return 0
}

// refine counts slots more cycles on the grid, up to k.nominal, and
// measures the period when there are enough.
func (k *cycleClock) refine(slots uint64) {
	if !k.timing {
		k.timing, k.anchor, k.slots = true, k.nominal, 0
		return
	}
	k.slots += slots
	if k.slots < refineSlots || k.nominal-k.anchor < minRefineSpan {
		return
	}
	if p := (k.nominal - k.anchor) / k.slots; p > 0 {
		k.period, k.refined = p, true
	}
	k.anchor, k.slots = k.nominal, 0
}

// record adds one spacing and, until the period is measured on the grid,
// checks the median of every minPeriodSamples new ones against it: the
// first estimate, its confirmation, a period learnt again when updates
// come faster than it; meanwhile it is the median of the last
// periodWindow spacings.
func (k *cycleClock) record(d uint64) {
	if k.refined {
		return
	}
	k.spacing[k.next] = d
	k.next = (k.next + 1) % periodWindow
	k.n = min(k.n+1, periodWindow)
	if k.fresh++; k.fresh < minPeriodSamples {
		return
	}
	k.fresh = 0
	m := k.median(minPeriodSamples)
	switch p := k.period; {
	case p == 0:
		k.period = m
	case !k.confirmed && (m < p/checkBelow || m > checkAbove*p),
		k.confirmed && m < p/checkBelow:
		// Not the period: learn it again from these spacings alone.
		k.period, k.confirmed, k.timing = m, false, false
		k.n = minPeriodSamples
	default:
		k.confirmed = true
		k.period = k.median(k.n)
	}
}

// median returns the median of the last count spacings recorded
// (count ≤ k.n).
func (k *cycleClock) median(count int) uint64 {
	var s [periodWindow]uint64
	w := s[:count]
	for i := range w {
		w[i] = k.spacing[(k.next-1-i+periodWindow)%periodWindow]
	}
	for i := 1; i < len(w); i++ { // insertion sort: 32 values at most
		for j := i; j > 0 && w[j] < w[j-1]; j-- {
			w[j], w[j-1] = w[j-1], w[j]
		}
	}
	return w[len(w)/2]
}
