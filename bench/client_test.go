package bench

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamerd/streamerd/datasource/udpstreamer/wire"
	"github.com/streamerd/streamerd/netthread"
	"github.com/streamerd/streamerd/rt/cpu"
)

// client is a UDPStreamer client built from the codec alone: it connects,
// then reads DATA on its own goroutine, reassembles, orders with a
// SequenceGate and counts whole updates.
type client struct {
	conn    *net.UDPConn
	srv     netip.AddrPort
	data    *wire.Reassembler
	gate    wire.SequenceGate
	updates atomic.Uint64 // whole updates accepted
	lost    atomic.Uint64 // counters skipped by the gate
	done    chan struct{}

	mu  sync.Mutex
	e2e []int64 // ns from the update's hrtTimestamp to its completion here
}

// maxE2E bounds the latency samples kept per step.
const maxE2E = 1 << 20

// takeE2E returns the latency samples since the last call and starts anew.
func (c *client) takeE2E(dst []int64) []int64 {
	c.mu.Lock()
	dst = append(dst[:0], c.e2e...)
	c.e2e = c.e2e[:0]
	c.mu.Unlock()
	return dst
}

func dialClient(srv netip.AddrPort, timeout time.Duration) (*client, error) {
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return nil, err
	}
	netthread.SetBuffers(conn, 0, rcvBufWant)
	c := &client{conn: conn, srv: srv, done: make(chan struct{}), e2e: make([]int64, 0, maxE2E)}
	infos, err := c.connect(timeout)
	if err != nil {
		conn.Close()
		return nil, err
	}
	size := wire.DataPayloadSize(infos)
	c.data, err = wire.NewReassembler(wire.ReassemblerConfig{Type: wire.Data, MaxPayload: size, InFlight: 8})
	if err != nil {
		conn.Close()
		return nil, err
	}
	c.data.SetExpectedPayload(size)
	conn.SetReadDeadline(time.Time{})
	go c.read()
	return c, nil
}

// connect sends CONNECT until a whole CONFIG arrives.
func (c *client) connect(timeout time.Duration) ([]wire.SignalInfo, error) {
	cfg, err := wire.NewReassembler(wire.ReassemblerConfig{Type: wire.Config, MaxPayload: 1 << 20})
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 65536)
	hello := wire.AppendHeader(nil, wire.Header{Type: wire.Connect, TotalFragments: 1})
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); {
		if _, err := c.conn.WriteToUDPAddrPort(hello, c.srv); err != nil {
			return nil, err
		}
		c.conn.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		for {
			n, err := c.conn.Read(buf)
			if err != nil {
				break
			}
			p, _, err := cfg.AddDatagram(buf[:n])
			if err != nil || p == nil {
				continue
			}
			return wire.ParseConfig(p)
		}
	}
	return nil, errors.New("bench: no CONFIG from the server")
}

// read is the receive loop; it allocates nothing per datagram.
func (c *client) read() {
	defer close(c.done)
	buf := make([]byte, 65536)
	for {
		n, err := c.conn.Read(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		p, ctr, err := c.data.AddDatagram(buf[:n])
		if err != nil || p == nil {
			continue
		}
		if lost, ok := c.gate.Accept(ctr); ok {
			// hrtTimestamp is CLOCK_MONOTONIC_RAW captured in Synchronise.
			if ts, err := wire.ParseDataTimestamp(p); err == nil {
				d := int64(cpu.MonotonicRawNanos() - ts)
				c.mu.Lock()
				if len(c.e2e) < cap(c.e2e) {
					c.e2e = append(c.e2e, d)
				}
				c.mu.Unlock()
			}
			c.lost.Add(uint64(lost))
			c.updates.Add(1)
		}
	}
}

// drain waits until want updates were accepted, or until none arrived for
// idle.
func (c *client) drain(want uint64, idle time.Duration) {
	last, since := c.updates.Load(), time.Now()
	for {
		n := c.updates.Load()
		if n >= want {
			return
		}
		if n != last {
			last, since = n, time.Now()
		} else if time.Since(since) > idle {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func (c *client) close() {
	c.conn.Close()
	<-c.done
}
