package scope

// ring is a power-of-two ring of (time, value) points kept in time order.
// It grows by doubling up to a maximum capacity while it holds less than
// the time span it is asked to keep, then overwrites its oldest point.
// Not safe for concurrent use; the Hub's lock guards every ring.
type ring struct {
	t, v    []float64 // len is the capacity, a power of two
	head    int       // physical index of the oldest point
	n       int       // points held
	dropped bool      // a point was overwritten: the ring no longer reaches back to its series' start
}

// pointBytes is the memory of one point of a ring.
const pointBytes = 16

func newRing(capacity int) *ring {
	return &ring{t: make([]float64, capacity), v: make([]float64, capacity)}
}

func (r *ring) mask() int { return len(r.t) - 1 }

// at returns logical point i (0 is the oldest).
func (r *ring) at(i int) (t, v float64) {
	j := (r.head + i) & r.mask()
	return r.t[j], r.v[j]
}

// last returns the newest point; the ring must not be empty.
func (r *ring) last() (t, v float64) { return r.at(r.n - 1) }

// oldest returns the time of the oldest point; the ring must not be empty.
func (r *ring) oldest() float64 { return r.t[r.head] }

// push appends a point. A full ring doubles when its capacity is below
// maxCap, its points span less than keep seconds and b grants the memory;
// otherwise the oldest point is overwritten.
func (r *ring) push(t, v float64, keep float64, maxCap int, b *budget) {
	if r.n == len(r.t) {
		c := len(r.t)
		if c < maxCap && t-r.oldest() < keep && b.take(int64(c)*pointBytes) {
			r.grow()
		} else {
			r.head = (r.head + 1) & r.mask()
			r.n--
			r.dropped = true
		}
	}
	j := (r.head + r.n) & r.mask()
	r.t[j], r.v[j] = t, v
	r.n++
}

// grow doubles the capacity, keeping the points in order.
func (r *ring) grow() {
	c := len(r.t)
	t, v := make([]float64, 2*c), make([]float64, 2*c)
	k := copy(t, r.t[r.head:])
	copy(t[k:], r.t[:r.head])
	k = copy(v, r.v[r.head:])
	copy(v[k:], r.v[:r.head])
	r.t, r.v, r.head = t, v, 0
}

// search returns the logical index of the first point whose time is at
// least t (r.n when there is none).
func (r *ring) search(t float64) int {
	lo, hi := 0, r.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if tm, _ := r.at(m); tm < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// span returns the logical points [i, j) as at most two pairs of physical
// slices, in order.
func (r *ring) span(i, j int) (t1, v1, t2, v2 []float64) {
	if i >= j {
		return nil, nil, nil, nil
	}
	a := (r.head + i) & r.mask()
	n := j - i
	if a+n <= len(r.t) {
		return r.t[a : a+n], r.v[a : a+n], nil, nil
	}
	k := len(r.t) - a
	return r.t[a:], r.v[a:], r.t[:n-k], r.v[:n-k]
}

// budget is the memory the histories of one Hub may hold. Guarded by the
// Hub's lock.
type budget struct {
	used, max int64
}

// take reserves n bytes and reports whether they fit.
func (b *budget) take(n int64) bool {
	if b.used+n > b.max {
		return false
	}
	b.used += n
	return true
}

func (b *budget) give(n int64) { b.used -= n }
