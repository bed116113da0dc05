package forensics

import "time"

// threadSample is what /proc says about one watched thread at one sample.
type threadSample struct {
	ok             bool // read whole
	tid            int
	minflt, majflt uint64
	cpu            int
	run, wait      int64 // ns
	vcsw, nvcsw    uint64
	cycles         uint64 // an RT thread's cycles run, from rt.Stats
	yields         uint64 // and the times it yielded its P (a voluntary switch each)
	// countsMatch: cycles and yields were read with no switch of the
	// thread on either side (vcsw the same before and after), so they
	// and vcsw describe the same instant.
	countsMatch bool
}

// sample is one reading of every counter the monitor follows.
type sample struct {
	at      int64   // cpu.Now ns
	behind  int64   // ns after it was due that the monitor's goroutine ran to take it
	stealOK uint64  // CPUs whose steal was read
	steal   []int64 // per CPU, ns
	pauses  goPauses
	threads []threadSample // one per watch, in watch order
}

// history is a ring of samples, oldest first.
type history struct {
	s     []sample
	first int // index of the oldest
	n     int
}

func newHistory(size, cpus, watches int) history {
	h := history{s: make([]sample, size)}
	steal := make([]int64, size*cpus)
	threads := make([]threadSample, size*watches)
	for i := range h.s {
		h.s[i] = sample{steal: steal[i*cpus : (i+1)*cpus : (i+1)*cpus], threads: threads[i*watches : (i+1)*watches : (i+1)*watches]}
	}
	return h
}

// at returns the i-th sample, oldest first.
func (h *history) at(i int) *sample { return &h.s[(h.first+i)%len(h.s)] }

// next returns the slot of a new sample, dropping the oldest when full.
func (h *history) next() *sample {
	if h.n == len(h.s) {
		h.first = (h.first + 1) % len(h.s)
		h.n--
	}
	s := &h.s[(h.first+h.n)%len(h.s)]
	h.n++
	return s
}

func (h *history) last() *sample {
	if h.n == 0 {
		return nil
	}
	return h.at(h.n - 1)
}

// enclose returns the indexes of the latest sample at or before from and
// of the earliest at or after to (the oldest and the latest samples when
// none is); ok is false with fewer than two samples.
func (h *history) enclose(from, to int64) (i0, i1 int, ok bool) {
	if h.n < 2 {
		return 0, 0, false
	}
	// Binary search for the first sample after from.
	lo, hi := 0, h.n
	for lo < hi {
		m := (lo + hi) / 2
		if h.at(m).at <= from {
			lo = m + 1
		} else {
			hi = m
		}
	}
	i0 = max(lo-1, 0)
	lo, hi = i0, h.n
	for lo < hi {
		m := (lo + hi) / 2
		if h.at(m).at < to {
			lo = m + 1
		} else {
			hi = m
		}
	}
	i1 = min(lo, h.n-1)
	if i1 == i0 {
		if i1 == h.n-1 {
			i0--
		} else {
			i1++
		}
	}
	return i0, i1, true
}

// secondBefore returns the index of the oldest sample at most a second
// older than sample i (i itself if none is).
func (h *history) secondBefore(i int) int {
	at := h.at(i).at
	j := i
	for j > 0 && at-h.at(j-1).at <= int64(time.Second) {
		j--
	}
	return j
}

// stallSlack is how late the monitor's goroutine may run after its sleep
// ended before the lateness counts as a span in which the Go runtime did
// not run it: a timer's usual wake-up on a loaded machine.
const stallSlack = 500 * time.Microsecond

// runtimeStall returns how much of from..to falls in the spans, between
// samples i0 and i1, in which the monitor's sleep had ended and the Go
// runtime had not run it yet (beyond stallSlack).
func (h *history) runtimeStall(i0, i1 int, from, to int64) (stall int64) {
	for i := i0 + 1; i <= i1; i++ {
		s := h.at(i)
		if s.behind <= int64(stallSlack) {
			continue
		}
		a, b := max(s.at-s.behind+int64(stallSlack), from), min(s.at, to)
		stall += max(b-a, 0)
	}
	return stall
}
