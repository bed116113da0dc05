package testenv

import (
	"encoding/binary"
	"errors"
	"net"
	"os"
	"sync"
	"testing"
	"time"
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

// Stop ends the capture, after the datagrams already delivered to the
// raw socket have been read, and returns their payloads in the order
// they came, or the socket's error. Later calls return the same.
func (c *UDPCapture) Stop() ([][]byte, error) {
	// A short wait for datagrams in the socket's queue, then close.
	_ = c.conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	c.wg.Wait()
	c.conn.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.got, c.fail
}
