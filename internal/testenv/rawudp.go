package testenv

import (
	"encoding/binary"
	"errors"
	"net"
	"os"
	"sync"
	"testing"
)

// UDPCapture keeps copies of the UDP datagrams sent on loopback to one
// port, whether or not a socket listens there, as a capture on the wire
// would: a raw IPv4 socket (CAP_NET_RAW) sees each datagram the kernel
// delivers locally, also one it then answers with ICMP port unreachable.
type UDPCapture struct {
	conn net.PacketConn
	port uint16
	wg   sync.WaitGroup

	mu   sync.Mutex
	got  [][]byte
	fail error
}

// CaptureUDP starts capturing the datagrams sent to 127.0.0.1:port. The
// test is skipped where raw sockets are refused (no CAP_NET_RAW, or not
// Linux); the capture is stopped when tb ends.
func CaptureUDP(tb testing.TB, port int) *UDPCapture {
	tb.Helper()
	conn, err := net.ListenPacket("ip4:udp", "127.0.0.1")
	if err != nil {
		tb.Skipf("no raw socket to capture UDP on loopback (needs CAP_NET_RAW): %v", err)
	}
	if rc, ok := conn.(interface{ SetReadBuffer(int) error }); ok {
		_ = rc.SetReadBuffer(4 << 20)
	}
	c := &UDPCapture{conn: conn, port: uint16(port)}
	c.wg.Go(c.run)
	tb.Cleanup(func() { c.Stop() })
	return c
}

// run keeps the payloads of the datagrams to the port: the raw socket
// gives the UDP header (8 bytes: source and destination port first) and
// the payload.
func (c *UDPCapture) run() {
	buf := make([]byte, 65536)
	for {
		n, _, err := c.conn.ReadFrom(buf)
		if err != nil {
			if !errors.Is(err, net.ErrClosed) && !errors.Is(err, os.ErrDeadlineExceeded) {
				c.mu.Lock()
				c.fail = err
				c.mu.Unlock()
			}
			return
		}
		if n < 8 || binary.BigEndian.Uint16(buf[2:4]) != c.port {
			continue
		}
		c.mu.Lock()
		c.got = append(c.got, append([]byte(nil), buf[8:n]...))
		c.mu.Unlock()
	}
}

// Captured returns the payloads captured so far, in the order they came.
func (c *UDPCapture) Captured() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.got[:len(c.got):len(c.got)]
}

// Stop ends the capture and returns the payloads captured, in the order
// they came, or the socket's error. Datagrams still queued on the socket
// may be left out: wait for Captured to hold what was sent first. Later
// calls return the same.
func (c *UDPCapture) Stop() ([][]byte, error) {
	c.conn.Close()
	c.wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.got, c.fail
}
