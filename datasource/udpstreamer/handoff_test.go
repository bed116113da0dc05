package udpstreamer

import (
	"encoding/binary"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/netthread"
	"github.com/streamerd/streamerd/rt/rtsync"
)

// putCycle publishes cycle v into h as Synchronise does, and reports
// whether it overwrote a waiting cycle.
func putCycle(h *cycleRing, v uint64) bool {
	i, over, carry := h.put()
	binary.LittleEndian.PutUint64(h.slots[i], v)
	h.stamps[i] = int64(v)
	h.gaps[i] = carry
	return over
}

func TestHandoffOrderAndOverwrite(t *testing.T) {
	h := newCycleRing(4, 8)
	spare := make([]byte, 8)
	if _, _, ok := h.take(spare); ok {
		t.Fatal("take from an empty ring")
	}
	overwritten := 0
	for v := uint64(1); v <= 10; v++ {
		if putCycle(&h, v) {
			overwritten++
		}
	}
	if overwritten != 6 || h.waiting() != 4 {
		t.Fatalf("overwritten %d, waiting %d; want 6, 4", overwritten, h.waiting())
	}
	// The four newest wait, oldest first.
	for want := uint64(7); want <= 10; want++ {
		c, stamp, ok := h.take(spare)
		if !ok || binary.LittleEndian.Uint64(c) != want || stamp != int64(want) {
			t.Fatalf("took %v (stamp %d, ok %v), want cycle %d", c, stamp, ok, want)
		}
		spare = c
	}
	if _, _, ok := h.take(spare); ok || h.waiting() != 0 {
		t.Fatal("ring not empty after taking every cycle")
	}
	// Interleaved: put two, take one, around the wrap.
	next := uint64(11)
	for want := uint64(11); want < 40; want++ {
		for h.waiting() < 2 {
			putCycle(&h, next)
			next++
		}
		c, _, ok := h.take(spare)
		if !ok || binary.LittleEndian.Uint64(c) != want {
			t.Fatalf("took %d, want %d", binary.LittleEndian.Uint64(c), want)
		}
		spare = c
	}
}

// TestHandoffSwapKeepsBuffersDistinct checks the ring never hands the same
// buffer to both sides: the slots and the network thread's buffer stay
// depth+1 distinct arrays through any sequence of puts and takes.
func TestHandoffSwapKeepsBuffersDistinct(t *testing.T) {
	h := newCycleRing(3, 8)
	spare := make([]byte, 8)
	for i := range 100 {
		if i%3 != 2 {
			putCycle(&h, uint64(i))
		} else if c, _, ok := h.take(spare); ok {
			spare = c
		}
		seen := map[*byte]bool{&spare[0]: true}
		for _, s := range h.slots {
			if seen[&s[0]] {
				t.Fatalf("step %d: a buffer is shared", i)
			}
			seen[&s[0]] = true
		}
	}
}

// stalledStreamer starts a Streamer whose network thread blocks before
// each drain while the returned flag is set.
func stalledStreamer(t *testing.T, cfg Config) (*Streamer, *atomic.Bool) {
	t.Helper()
	cfg.Name, cfg.Address = "S", "127.0.0.1"
	s, err := New(cfg, metrics.NewSet(), discard())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AllocateMemory(); err != nil {
		t.Fatal(err)
	}
	stall := new(atomic.Bool)
	s.beforeTake = func() {
		for stall.Load() {
			time.Sleep(100 * time.Microsecond)
		}
	}
	if err := s.PrepareNextState(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, stall
}

// publishStalled stalls the network thread and, while it waits, publishes
// the cycles 1..n, each numbered in signal 0. The thread stays stalled.
func publishStalled(t *testing.T, s *Streamer, stall *atomic.Bool, n uint32) {
	t.Helper()
	stall.Store(true)
	time.Sleep(30 * time.Millisecond) // the network thread is inside the hook
	for i := uint32(1); i <= n; i++ {
		binary.LittleEndian.PutUint32(testenv.Must(s.GetSignalMemoryBuffer(0)), i)
		if err := s.Synchronise(); err != nil {
			t.Fatal(err)
		}
	}
}

// accounted reports whether every Synchronise has ended in exactly one
// counter and none waits.
func (s *Streamer) accounted() bool {
	return s.m.skipped.Get()+s.m.noClient.Get()+s.m.updates.Get()+s.m.sendErrors.Get() == s.m.synchronised.Get()
}

// TestHandOffDepthDrainsInOrderAfterAStall stalls the network thread while
// the RT side publishes more cycles than the ring holds: the client then
// receives the newest HandOffDepth cycles, in order, each its own update
// with consecutive counters and increasing hrtTimestamps; the older ones
// are counted as skipped, and every Synchronise ends in exactly one
// counter.
func TestHandOffDepthDrainsInOrderAfterAStall(t *testing.T) {
	const depth, n = 8, 50
	cfg := scalarCfg()
	cfg.HandOffDepth = depth
	s, stall := stalledStreamer(t, cfg)
	c := connected(t, s)

	publishStalled(t, s, stall, n)
	if s.m.skipped.Get() != n-depth {
		t.Errorf("skipped %d while stalled, want %d", s.m.skipped.Get(), n-depth)
	}
	stall.Store(false)
	var prevHRT uint64
	for k := range depth {
		p, ctr, lost, err := c.next(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		got, hrt := binary.LittleEndian.Uint32(p[8:]), binary.LittleEndian.Uint64(p)
		if want := uint32(n - depth + 1 + k); got != want || lost != 0 || ctr != uint32(k) {
			t.Errorf("update %d: cycle %d, counter %d, lost %d; want cycle %d, counter %d, lost 0", k, got, ctr, lost, want, k)
		}
		if hrt <= prevHRT {
			t.Errorf("update %d: hrtTimestamp %d not after %d", k, hrt, prevHRT)
		}
		prevHRT = hrt
	}
	waitFor(t, s.accounted)
	if s.m.synchronised.Get() != n || s.m.updates.Get() != depth {
		t.Errorf("synchronised %d, sent %d; want %d, %d", s.m.synchronised.Get(), s.m.updates.Get(), n, depth)
	}
}

// TestHandOffCountingInvariantUnderStalls publishes cycles at a steady
// pace while the network thread stalls now and then: at every instant the
// counters plus the cycles waiting equal the Synchronise calls, and at the
// end every call is accounted for, with and without a client.
func TestHandOffCountingInvariantUnderStalls(t *testing.T) {
	for _, withClient := range []bool{true, false} {
		cfg := scalarCfg()
		cfg.HandOffDepth = 4
		s, stall := stalledStreamer(t, cfg)
		if withClient {
			connected(t, s)
		}
		for i := range 2000 {
			stall.Store(i%200 < 50)
			s.Synchronise()
			if i%97 == 0 {
				s.lock.FastLock(-1, 0)
				waiting := uint64(s.ring.waiting())
				sum := s.m.skipped.Get() + s.m.noClient.Get() + s.m.updates.Get() + s.m.sendErrors.Get()
				s.lock.FastUnLock()
				// Counters move after the lock is released: the sum may
				// lag, never lead.
				if sum+waiting > s.m.synchronised.Get() {
					t.Fatalf("cycle %d: counted %d + waiting %d > synchronised %d", i, sum, waiting, s.m.synchronised.Get())
				}
			}
			spin(20 * time.Microsecond)
		}
		stall.Store(false)
		waitFor(t, s.accounted)
		if s.m.skipped.Get() == 0 {
			t.Errorf("client %v: no cycle skipped: the stalls did not fill the ring", withClient)
		}
		t.Logf("client %v: synchronised %d, skipped %d, without client %d, sent %d", withClient,
			s.m.synchronised.Get(), s.m.skipped.Get(), s.m.noClient.Get(), s.m.updates.Get())
	}
}

// TestAutoHandOffKeepsAStall checks the default, automatic hand-off: at a
// 1 ms CyclePeriod it holds 500 ms of cycles, so 150 cycles published
// while the network thread stalls all reach the client, in order, and
// none is skipped; Status and Describe say the depth and what it covers.
func TestAutoHandOffKeepsAStall(t *testing.T) {
	const n = 150
	cfg := scalarCfg()
	cfg.CyclePeriod = time.Millisecond
	s, stall := stalledStreamer(t, cfg)
	if h := s.handOff; h.Depth != 500 || !h.Auto || h.Covers != 500*time.Millisecond || hooks(s).HandOffCovers() != h.Covers {
		t.Fatalf("hand-off %+v, want 500 cycles chosen by time, covering 500 ms", h)
	}
	st := s.snapshot()
	if st.HandOffDepth != 500 || !st.HandOffAuto || st.HandOffCoversMs != 500 || st.NetworkWait != "paced" {
		t.Errorf("status %+v", st)
	}
	if d := s.describe(); !strings.Contains(d, "hand-off ring: 500 cycles (auto), 500ms at 1ms a cycle") || !strings.Contains(d, "network wait: paced") {
		t.Errorf("Describe: %q", d)
	}
	c := connected(t, s)
	publishStalled(t, s, stall, n)
	stall.Store(false)
	for k := range n {
		p, ctr, lost, err := c.next(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if got := binary.LittleEndian.Uint32(p[8:]); got != uint32(k+1) || lost != 0 || ctr != uint32(k) {
			t.Fatalf("update %d: cycle %d, counter %d, lost %d", k, got, ctr, lost)
		}
	}
	waitFor(t, s.accounted)
	if s.m.skipped.Get() != 0 || s.m.updates.Get() != n {
		t.Errorf("skipped %d, sent %d; want 0, %d", s.m.skipped.Get(), s.m.updates.Get(), n)
	}
	if p := s.snapshot().HandOffPeak; p != n {
		t.Errorf("peak %d, want the %d cycles published during the stall", p, n)
	}
}

// TestNetworkWakeupsCounted checks that a Synchronise that finds the
// network thread parked is counted in network_wakeups_total and /status.
func TestNetworkWakeupsCounted(t *testing.T) {
	cfg := scalarCfg()
	cfg.NetworkWait = netthread.WaitPark
	s := start(t, cfg)
	// Each cycle is taken at once, and the thread parks again: sooner or
	// later a Synchronise finds it parked, whatever the load.
	deadline := time.Now().Add(10 * time.Second)
	for s.m.wakeups.Get() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no Synchronise woke the parked network thread in 10 s")
		}
		s.Synchronise()
		waitFor(t, s.accounted)
		time.Sleep(time.Millisecond)
	}
	if st := s.snapshot(); st.NetworkWakeups == 0 || st.NetworkWait != "park" {
		t.Errorf("status: wakeups %d, wait %q", st.NetworkWakeups, st.NetworkWait)
	}
}

// TestLockTimeoutHoldsTheCycle checks what Synchronise does when the
// FastLock stays taken (a network thread preempted while it holds it): the
// cycle is held on the RT side and published before the next one, so the
// client receives both in order and nothing is skipped; timeouts in a row
// hold their cycles in order until the held slots are full, and only then
// drop the oldest held (errLockTimeout, counted).
func TestLockTimeoutHoldsTheCycle(t *testing.T) {
	s := start(t, scalarCfg())
	s.lockTimeout = time.Microsecond
	c := connected(t, s)
	sync := func(v uint32) error {
		binary.LittleEndian.PutUint32(testenv.Must(s.GetSignalMemoryBuffer(0)), v)
		return s.Synchronise()
	}
	s.lock.FastLock(rtsync.Forever, 0) // the network thread, preempted inside
	if err := sync(1); err != nil {
		t.Fatalf("first timeout: %v, want the cycle held", err)
	}
	s.lock.FastUnLock()
	if err := sync(2); err != nil {
		t.Fatal(err)
	}
	for _, want := range []uint32{1, 2} {
		p, _, lost, err := c.next(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if got := binary.LittleEndian.Uint32(p[8:]); got != want || lost != 0 {
			t.Fatalf("cycle %d (lost %d), want %d", got, lost, want)
		}
	}
	if s.m.lockTimeouts.Get() != 1 || s.m.skipped.Get() != 0 {
		t.Errorf("lock timeouts %d, skipped %d; want 1, 0", s.m.lockTimeouts.Get(), s.m.skipped.Get())
	}
	// Timeouts in a row: every cycle is held, in order, until the held
	// slots are full; one more drops the oldest held.
	k := len(s.held)
	s.lock.FastLock(rtsync.Forever, 0)
	for v := uint32(3); v < 3+uint32(k); v++ {
		if err := sync(v); err != nil {
			t.Fatalf("timeout %d with %d slots: %v", v-2, k, err)
		}
	}
	if err := sync(3 + uint32(k)); !errors.Is(err, datasource.ErrCycleSkipped) {
		t.Fatalf("timeout with every slot full: %v, want errLockTimeout", err)
	}
	s.lock.FastUnLock()
	last := 4 + uint32(k)
	if err := sync(last); err != nil {
		t.Fatal(err)
	}
	for want := uint32(4); want <= last; want++ { // 3 was dropped
		p, _, _, err := c.next(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if got := binary.LittleEndian.Uint32(p[8:]); got != want {
			t.Fatalf("cycle %d, want %d", got, want)
		}
	}
	waitFor(t, s.accounted)
	if s.m.lockTimeouts.Get() != uint64(2+k) || s.m.skipped.Get() != 1 {
		t.Errorf("lock timeouts %d, skipped %d; want %d, 1", s.m.lockTimeouts.Get(), s.m.skipped.Get(), 2+k)
	}
}
