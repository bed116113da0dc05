package udpstreamer

import (
	"encoding/binary"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/internal/memory"
	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
	"github.com/streamerd/streamerd/internal/testenv"
)

// patternCfg is 64 KiB of uint32 words; every cycle writes its number into
// every word, so a torn copy shows as an update whose words differ.
func patternCfg() Config {
	return Config{MaxPayloadSize: 65507, Signals: []datasource.Signal{
		{Name: "Words", Type: datasource.Uint32, NumberOfDimensions: 1, NumberOfElements: 16384},
	}}
}

func fill(s *Streamer, n uint32) {
	w := memory.View[uint32](testenv.Must(s.GetSignalMemoryBuffer(0)))
	for i := range w {
		w[i] = n
	}
}

// TestStalledNetworkThreadNeverTearsOrBlocks holds the hand-off lock from
// another goroutine, as a network thread descheduled inside it would: the
// RT side times out after LockTimeout, holds the cycle back (dropping and
// counting the one held before on a second timeout in a row) and goes on,
// and every update that reaches the client is one whole cycle.
func TestStalledNetworkThreadNeverTearsOrBlocks(t *testing.T) {
	s := start(t, patternCfg())
	c := connected(t, s)

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // the staller
		defer wg.Done()
		for !stop.Load() {
			s.lock.FastLock(-1, 0)
			spin(2 * time.Millisecond)
			s.lock.FastUnLock()
			time.Sleep(time.Millisecond)
		}
	}()
	var timeouts atomic.Uint64
	go func() { // the RT side
		defer wg.Done()
		for n := uint32(1); !stop.Load(); n++ {
			fill(s, n)
			if s.Synchronise() == errLockTimeout {
				timeouts.Add(1)
			}
			spin(100 * time.Microsecond)
		}
	}()
	got := 0
	for deadline := time.Now().Add(3 * time.Second); got < 300 && time.Now().Before(deadline); {
		p, _, _, err := c.next(2 * time.Second)
		if err != nil {
			break
		}
		words := p[frame.DataTimestampSize:]
		first := binary.LittleEndian.Uint32(words)
		for i := 4; i < len(words); i += 4 {
			if w := binary.LittleEndian.Uint32(words[i:]); w != first {
				t.Fatalf("torn update: word %d is %d, word 0 is %d", i/4, w, first)
			}
		}
		got++
	}
	stop.Store(true)
	wg.Wait()
	if got < 10 {
		t.Fatalf("only %d updates", got)
	}
	// Every timeout is counted; a held cycle dropped by the next timeout
	// is returned as errLockTimeout and counted as skipped.
	if n := s.m.lockTimeouts.Get(); n == 0 || timeouts.Load() > n || timeouts.Load() > s.m.skipped.Get() {
		t.Errorf("lock timeouts: %d counted, %d dropped (errLockTimeout), %d skipped", n, timeouts.Load(), s.m.skipped.Get())
	}
	t.Logf("%d whole updates, %d Synchronise calls timed out on the FastLock (counted), %d held cycles dropped", got, s.m.lockTimeouts.Get(), timeouts.Load())
}

// TestClientThatNeverReads fills its own receive buffer; the server keeps
// sending (the kernel drops at the receiver), and the next client is served.
func TestClientThatNeverReads(t *testing.T) {
	cfg := patternCfg()
	s := start(t, cfg)
	drive(t, s, 200*time.Microsecond)
	lazy := newRawClient(t, s.LocalAddr())
	lazy.conn.SetReadBuffer(4096)
	lazy.connect()
	before := s.m.updates.Get()
	waitFor(t, func() bool { return s.m.updates.Get() > before+200 })
	c := connected(t, s)
	c.expect(20)
}

// TestConnectStormFromOutsideAllowedClients sends CONNECTs from many
// sockets on other loopback addresses while a client is connected: they
// are refused and counted, and the client keeps its stream.
func TestConnectStormFromOutsideAllowedClients(t *testing.T) {
	cfg := scalarCfg()
	cfg.AllowedClients = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	s := start(t, cfg)
	drive(t, s, 500*time.Microsecond)
	c := connected(t, s)

	var storm []*net.UDPConn
	for i := 0; i < 100; i++ {
		ip := net.IPv4(127, 0, 1, byte(1+i))
		conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: ip})
		if err != nil {
			t.Skipf("cannot bind %v: %v", ip, err)
		}
		defer conn.Close()
		storm = append(storm, conn)
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	connect := frame.AppendHeader(nil, frame.Header{Type: frame.Connect, TotalFragments: 1})
	disconnect := frame.AppendHeader(nil, frame.Header{Type: frame.Disconnect, TotalFragments: 1})
	for round := 0; round < 20; round++ {
		for _, conn := range storm {
			conn.WriteToUDPAddrPort(connect, s.LocalAddr())
			conn.WriteToUDPAddrPort(disconnect, s.LocalAddr())
		}
		if _, _, _, err := c.next(5 * time.Second); err != nil {
			t.Fatalf("client lost its stream during the storm: %v", err)
		}
	}
	waitFor(t, func() bool { return s.m.refused.Get() > 100 })
	runtime.ReadMemStats(&ms1)
	if s.snapshot().Client != c.conn.LocalAddr().String() {
		t.Errorf("session moved to %s", s.snapshot().Client)
	}
	if grow := int64(ms1.HeapInuse) - int64(ms0.HeapInuse); grow > 8<<20 {
		t.Errorf("heap grew %d bytes during the storm", grow)
	}
	t.Logf("refused %d CONNECTs, %d stranger DISCONNECTs", s.m.refused.Get(), s.m.strangerDisconnects.Get())
}
