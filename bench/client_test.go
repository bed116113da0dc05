package bench

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	udpsclient "github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/rt/cpu"
)

// client is a UDPStreamer client on the client library: it connects,
// then reads DATA on its own goroutine and counts whole updates, without
// decoding them.
type client struct {
	cl      *udpsclient.Client
	updates atomic.Uint64 // whole updates accepted
	lost    atomic.Uint64 // counters the library found missing
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
	cl, err := udpsclient.Dial(srv.String(), udpsclient.Options{LocalAddr: "127.0.0.1:0", ConnectTimeout: timeout,
		ReadBuffer: rcvBufWant, MaxInFlight: 8, Silence: -1})
	if err != nil {
		return nil, err
	}
	if _, err := cl.Connect(context.Background()); err != nil {
		cl.Close()
		return nil, err
	}
	c := &client{cl: cl, done: make(chan struct{}), e2e: make([]int64, 0, maxE2E)}
	go c.read()
	return c, nil
}

// read is the receive loop; it allocates nothing per update.
func (c *client) read() {
	defer close(c.done)
	var u udpsclient.Update
	for {
		if err := c.cl.Next(&u); err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		// hrtTimestamp is CLOCK_MONOTONIC_RAW captured in Synchronise.
		d := int64(cpu.MonotonicRawNanos() - u.HRT)
		c.mu.Lock()
		if len(c.e2e) < cap(c.e2e) {
			c.e2e = append(c.e2e, d)
		}
		c.mu.Unlock()
		c.lost.Add(uint64(u.Lost))
		c.updates.Add(1)
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
	c.cl.Close()
	<-c.done
}
