package sendpath

import (
	"errors"
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
)

// closedPort returns a loopback address nobody listens on.
func closedPort(t *testing.T) *net.UDPAddr {
	c := testenv.Loopback(t)
	a := c.LocalAddr().(*net.UDPAddr)
	c.Close()
	return a
}

// icmpQueued returns a loopback socket with its ICMP error queue, and
// skips t where errors are not queued.
func icmpQueued(t *testing.T) (*net.UDPConn, *ErrQueue) {
	t.Helper()
	if runtime.GOOS != "linux" || testenv.Portable {
		t.Skip("ICMP errors are queued on Linux only")
	}
	conn := testenv.Loopback(t)
	q, err := EnableICMPErrors(conn)
	if err != nil {
		t.Fatal(err)
	}
	return conn, q
}

// TestICMPPortUnreachable sends to a closed loopback port: the kernel
// answers with ICMP port unreachable, the next send fails with
// ECONNREFUSED, and the queue names the destination.
func TestICMPPortUnreachable(t *testing.T) {
	conn, q := icmpQueued(t)
	dst := closedPort(t)
	var refused bool
	for i := 0; i < 50 && !refused; i++ {
		_, err := conn.WriteToUDP([]byte("x"), dst)
		refused = errors.Is(err, syscall.ECONNREFUSED)
		time.Sleep(time.Millisecond)
	}
	if !refused {
		t.Fatal("no ECONNREFUSED after sending to a closed port")
	}
	var got []ICMPError
	q.Read(func(e ICMPError) { got = append(got, e) })
	if len(got) == 0 || got[0].Dst != dst.AddrPort() || !got[0].PortUnreachable {
		t.Fatalf("queue: %+v, want port unreachable from %v", got, dst)
	}
	if n := q.Read(func(ICMPError) {}); n != 0 {
		t.Errorf("%d errors left after a read", n)
	}
	testenv.SkipIfRace(t)
	fn := func(ICMPError) {}
	if a := testing.AllocsPerRun(100, func() { q.Read(fn) }); a != 0 {
		t.Errorf("Read: %v allocs", a)
	}
}

func TestDestWatch(t *testing.T) {
	conn, q := icmpQueued(t)
	w := newDestWatch(q, time.Second)
	s, err := NewSender(conn, MethodAuto)
	if err != nil {
		t.Fatal(err)
	}
	s.SetDestination(closedPort(t).AddrPort())
	became := 0
	for i := range 20 {
		if _, err := s.Send([]byte("x"), 1); err != nil && w.SendFailed(int64(i)) {
			became++
		}
		time.Sleep(time.Millisecond)
	}
	if became != 1 || !w.gone || w.PortUnreachables() == 0 {
		t.Fatalf("became %d, unreachable %v, seen %d", became, w.gone, w.PortUnreachables())
	}
	if w.Tick(int64(time.Second) / 2) {
		t.Error("back before hold")
	}
	if !w.Tick(int64(2*time.Second)) || w.gone {
		t.Error("not back after hold")
	}
}

// TestDestWatchSendRetries sends to a closed port through Send: each send
// meets the ICMP error of the datagram before, reads it and goes out on
// the second try, so no send fails, and none allocates.
func TestDestWatchSendRetries(t *testing.T) {
	conn, q := icmpQueued(t)
	w := newDestWatch(q, time.Second)
	s, err := NewSender(conn, MethodAuto)
	if err != nil {
		t.Fatal(err)
	}
	s.SetDestination(closedPort(t).AddrPort())
	b := []byte("x")
	became := 0
	for range 20 {
		gone, err := w.Send(s, b)
		if err != nil {
			t.Fatalf("Send: %v", err)
		}
		if gone {
			became++
		}
		time.Sleep(time.Millisecond)
	}
	if became != 1 || w.PortUnreachables() == 0 {
		t.Fatalf("became %d, port unreachables %d", became, w.PortUnreachables())
	}
	testenv.SkipIfRace(t)
	if a := testing.AllocsPerRun(100, func() { _, _ = w.Send(s, b) }); a != 0 {
		t.Errorf("Send: %v allocs", a)
	}
}
