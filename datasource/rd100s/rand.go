package rd100s

// rng is splitmix64 (Steele, Lea and Flood): a 64-bit state, one add and
// three xor-shift-multiplies per draw. It is small, fast, allocation-free
// and, unlike the global math/rand, reproducible from a seed. Each
// degradation draws from its own rng, so turning one on does not change the
// choices of another.
type rng struct{ s uint64 }

func newRng(seed uint64, stream kind) rng {
	r := rng{s: seed ^ (uint64(stream)+1)*0xd1b54a32d192ed03}
	r.next()
	return r
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// float64 returns a uniform number in [0, 1) with 53 random bits.
func (r *rng) float64() float64 { return float64(r.next()>>11) / (1 << 53) }

// chance reports true with probability p. It draws only when 0 < p < 1, so
// p = 0 and p = 1 consume nothing.
func (r *rng) chance(p float64) bool {
	switch {
	case p <= 0:
		return false
	case p >= 1:
		return true
	}
	return r.float64() < p
}

// upTo returns a uniform integer in [0, n] (n ≥ 0). The modulo bias is
// below n/2^64, negligible for the nanosecond windows used here.
func (r *rng) upTo(n int64) int64 {
	if n <= 0 {
		return 0
	}
	return int64(r.next() % (uint64(n) + 1))
}
