package sendpath

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
)

func listen(t testing.TB, network, addr string) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP(network, net.UDPAddrFromAddrPort(netip.MustParseAddrPort(addr)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// pattern fills a buffer of n datagrams of seg bytes (the last short by
// short bytes); each datagram starts with its index.
func pattern(n, seg, short int) []byte {
	buf := make([]byte, n*seg-short)
	for i := range buf {
		buf[i] = byte(i*7 + i/seg)
	}
	for i := 0; i < n; i++ {
		buf[i*seg] = byte(i)
	}
	return buf
}

// methods returns the methods this system offers on conn.
func methods(tb testing.TB, conn *net.UDPConn) []SendMethod {
	ms := []SendMethod{MethodSendto}
	for _, m := range []SendMethod{MethodSendmmsg, MethodGSO} {
		if _, err := NewSender(conn, m); err != nil {
			tb.Logf("%v not available here: %v", m, err)
			continue
		}
		ms = append(ms, m)
	}
	return ms
}

func TestSendEveryMethod(t *testing.T) {
	for _, network := range []string{"udp4", "udp6"} {
		addr := "127.0.0.1:0"
		dstHost := "127.0.0.1"
		if network == "udp6" {
			addr = "[::1]:0"
			dstHost = "::1"
		}
		srv, err := net.ListenUDP(network, net.UDPAddrFromAddrPort(netip.MustParseAddrPort(addr)))
		if err != nil {
			t.Logf("%s unavailable: %v", network, err)
			continue
		}
		defer srv.Close()
		rcv := listen(t, network, addr)
		rcv.SetReadBuffer(4 << 20)
		dst := netip.AddrPortFrom(netip.MustParseAddr(dstHost), rcv.LocalAddr().(*net.UDPAddr).AddrPort().Port())
		for _, m := range methods(t, srv) {
			for _, tc := range []struct{ n, seg, short int }{{1, 100, 0}, {1, 1400, 700}, {3, 1400, 100}, {45, 1400, 1}, {100, 18, 0}, {70, 1000, 3}} {
				t.Run(fmt.Sprintf("%s/%s/%dx%d", network, m, tc.n, tc.seg), func(t *testing.T) {
					s, err := NewSender(srv, m)
					if err != nil {
						t.Fatal(err)
					}
					s.SetDestination(dst)
					buf := pattern(tc.n, tc.seg, tc.short)
					sent, err := s.Send(buf, tc.seg)
					if err != nil || sent != tc.n {
						t.Fatalf("sent %d of %d: %v", sent, tc.n, err)
					}
					got := make([]byte, 65536)
					rcv.SetReadDeadline(time.Now().Add(5 * time.Second))
					for i := 0; i < tc.n; i++ {
						k, from, err := rcv.ReadFromUDPAddrPort(got)
						if err != nil {
							t.Fatalf("datagram %d: %v", i, err)
						}
						if from.Port() != srv.LocalAddr().(*net.UDPAddr).AddrPort().Port() {
							t.Errorf("from %v", from)
						}
						end := min((i+1)*tc.seg, len(buf))
						if !bytes.Equal(got[:k], buf[i*tc.seg:end]) {
							t.Fatalf("datagram %d: %d bytes, want %d; first byte %d", i, k, end-i*tc.seg, got[0])
						}
					}
				})
			}
		}
	}
}

func TestNoDestination(t *testing.T) {
	s, err := NewSender(listen(t, "udp4", "127.0.0.1:0"), MethodSendto)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Send([]byte{1}, 1); err != ErrNoDestination {
		t.Fatalf("err %v", err)
	}
}

func TestSendNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	srv := listen(t, "udp4", "127.0.0.1:0")
	rcv := listen(t, "udp4", "127.0.0.1:0")
	for _, m := range methods(t, srv) {
		s, err := NewSender(srv, m)
		if err != nil {
			t.Fatal(err)
		}
		s.SetDestination(rcv.LocalAddr().(*net.UDPAddr).AddrPort())
		buf := pattern(3, 1400, 10)
		if n := testing.AllocsPerRun(200, func() { s.Send(buf, 1400) }); n != 0 {
			t.Errorf("%s: %v allocs per Send", m, n)
		}
	}
}

func TestNewRejectsUnknownMethod(t *testing.T) {
	if _, err := NewSender(listen(t, "udp4", "127.0.0.1:0"), SendMethod(9)); err == nil {
		t.Error("SendMethod(9) accepted")
	}
	if SendMethod(9).String() != "SendMethod(9)" {
		t.Error(SendMethod(9).String())
	}
}

func TestAutoPicksAvailableMethod(t *testing.T) {
	conn := listen(t, "udp4", "127.0.0.1:0")
	s, err := NewSender(conn, MethodAuto)
	if err != nil {
		t.Fatal(err)
	}
	ms := methods(t, conn)
	if s.Method() != ms[len(ms)-1] {
		t.Errorf("Auto picked %v; available %v", s.Method(), ms)
	}
}
