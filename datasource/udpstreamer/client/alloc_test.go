package client

import (
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

var (
	sinkF64 []float64
	sinkI64 []int64
	sinkB   []byte
)

// TestNextNoAllocs feeds the burst configuration (3 fragments per update)
// through real loopback sockets and requires Next, and the decoding of every
// signal with its times, to be allocation-free once the Update is warm.
func TestNextNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	sigs := burstSigs()
	srv, c := session(t, sigs, 1400)
	p := payload(t, sigs, 1, burstValues(5, 1000))
	var u Update
	counter := uint32(0)
	ints := make([]int64, 0, 1000)
	step := func(decode bool) {
		send(t, srv, counter, p)
		next(t, c, &u)
		counter++
		if decode {
			sinkF64 = u.Float64s(1)
			sinkF64 = u.Times(1)
			sinkF64 = u.Float64s(0)
			sinkI64 = appendValues(ints[:0], &u, 0)
			sinkB = u.Raw(1)
		}
	}
	step(true) // warm-up: the Update's buffers (AllocsPerRun adds one more run each)
	if n := testing.AllocsPerRun(200, func() { step(false) }); n != 0 {
		t.Errorf("Next: %v allocations per update, want 0", n)
	}
	if n := testing.AllocsPerRun(200, func() { step(true) }); n != 0 {
		t.Errorf("Next and decoding: %v allocations per update, want 0", n)
	}
	if st := c.Stats(); st.Updates != 403 || st.Lost != 0 {
		t.Errorf("Updates %d Lost %d", st.Updates, st.Lost)
	}
}
