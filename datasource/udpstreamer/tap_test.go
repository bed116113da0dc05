package udpstreamer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/rt/rtsync"
)

// syncCycle publishes cycle n (signal 0 is a uint32 counter).
func syncCycle(s *Streamer, n uint32) {
	// A cycle Synchronise holds back when the network thread holds the
	// lock past lockTimeout (preempted, on a loaded machine) goes out only
	// with the next one, which these tests, one cycle at a time, wait for
	// in vain: here the caller waits for the lock instead.
	s.lockTimeout = time.Minute
	binary.LittleEndian.PutUint32(testenv.Must(s.GetSignalMemoryBuffer(0)), n)
	s.Synchronise()
}

// TestTapWithoutClient reads every update through the tap with no client
// connected: the session stays empty and the cycles count as without a
// client.
func TestTapWithoutClient(t *testing.T) {
	s := start(t, scalarCfg())
	tap, err := openTap(s)
	if err != nil {
		t.Fatal(err)
	}
	defer tap.Close()
	infos, err := frame.ParseConfig(tap.ConfigPayload())
	if err != nil || len(infos) != 2 || infos[0].Name != "Counter" {
		t.Fatalf("CONFIG: %v, %v", infos, err)
	}
	if _, err := openTap(s); !errors.Is(err, errTapBusy) {
		t.Errorf("second OpenTap: %v", err)
	}
	var prevHRT uint64
	for n := uint32(1); n <= 50; n++ {
		syncCycle(s, n)
		p, missed, err := tap.Next(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if len(p) != s.dataLayout.Payload || binary.LittleEndian.Uint32(p[8:]) != n || missed != 0 {
			t.Fatalf("cycle %d: payload of %d bytes carries %d, missed %d", n, len(p), binary.LittleEndian.Uint32(p[8:]), missed)
		}
		if hrt := binary.LittleEndian.Uint64(p); hrt <= prevHRT {
			t.Fatalf("cycle %d: hrtTimestamp %d after %d", n, hrt, prevHRT)
		} else {
			prevHRT = hrt
		}
	}
	waitFor(t, s.accounted)
	if s.snapshot().Connected || s.m.noClient.Get() != 50 || s.m.updates.Get() != 0 {
		t.Errorf("connected %v, without client %d, sent %d", s.snapshot().Connected, s.m.noClient.Get(), s.m.updates.Get())
	}
	if _, _, err := tap.Next(10 * time.Millisecond); !errors.Is(err, rtsync.ErrTimeout) {
		t.Errorf("Next with nothing new: %v", err)
	}
}

// TestTapBesideClient: the client receives every update as it would
// without the tap, the tap the same payloads, and a consumer that stops
// reading only misses updates (counted), never slows the stream.
func TestTapBesideClient(t *testing.T) {
	s := start(t, scalarCfg())
	c := connected(t, s)
	tap, err := openTap(s)
	if err != nil {
		t.Fatal(err)
	}
	for n := uint32(1); n <= 20; n++ {
		syncCycle(s, n)
		cp, ctr, lost, err := c.next(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		tp, missed, err := tap.Next(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(cp, tp) || ctr != n-1 || lost != 0 || missed != 0 {
			t.Fatalf("cycle %d: client and tap differ (counter %d, lost %d, missed %d)", n, ctr, lost, missed)
		}
	}
	// The consumer sleeps through 30 updates: it gets the newest and the
	// count of those it missed; the client got all of them.
	for n := uint32(21); n <= 50; n++ {
		syncCycle(s, n)
		c.expect(1)
	}
	p, missed, err := tap.Next(5 * time.Second)
	if err != nil || binary.LittleEndian.Uint32(p[8:]) != 50 || missed != 29 {
		t.Fatalf("after the pause: cycle %d, missed %d, %v", binary.LittleEndian.Uint32(p[8:]), missed, err)
	}
	tap.Close()
	tap.Close()
	if _, _, err := tap.Next(time.Second); !errors.Is(err, errTapClosed) {
		t.Errorf("Next after Close: %v", err)
	}
	syncCycle(s, 51) // the stream goes on without the tap
	c.expect(1)
	if _, err := openTap(s); err != nil {
		t.Errorf("reopen: %v", err)
	}
}

// TestTapCloseWakesNext checks Close ends a Next that waits, the tap's
// Close or the Streamer's.
func TestTapCloseWakesNext(t *testing.T) {
	for _, closer := range []string{"tap", "Streamer"} {
		s := start(t, scalarCfg())
		tap, err := openTap(s)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error)
		go func() {
			_, _, err := tap.Next(rtsync.Forever)
			done <- err
		}()
		time.Sleep(10 * time.Millisecond)
		if closer == "tap" {
			tap.Close()
		} else {
			s.Close()
		}
		select {
		case err := <-done:
			if !errors.Is(err, errTapClosed) {
				t.Fatalf("%s closed: Next: %v", closer, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s closed: Next still waiting after 10 s", closer)
		}
	}
}

// TestTapSteadyStateNoAllocs streams thousands of cycles to a client and
// a tap read by another goroutine: nothing allocates.
func TestTapSteadyStateNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	s := start(t, docBurstCfg())
	c := connected(t, s)
	go func() {
		buf := make([]byte, 65536)
		for {
			if _, _, err := c.conn.ReadFromUDPAddrPort(buf); err != nil {
				return
			}
		}
	}()
	tap, err := openTap(s)
	if err != nil {
		t.Fatal(err)
	}
	var got atomic.Uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, _, err := tap.Next(time.Second); errors.Is(err, errTapClosed) {
				return
			}
			got.Add(1)
		}
	}()
	run := func(n int) {
		for i := range n {
			syncCycle(s, uint32(i))
			spin(200 * time.Microsecond)
		}
	}
	run(1000)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	run(3000)
	runtime.ReadMemStats(&m1)
	tap.Close()
	<-done
	c.conn.Close()
	if d := m1.Mallocs - m0.Mallocs; d > 20 {
		t.Errorf("%d allocations over 3000 cycles", d)
	}
	if got.Load() < 1000 {
		t.Errorf("the tap read only %d updates", got.Load())
	}
}
