package rd100slink

import (
	"context"
	"errors"
	"net"
	"os"
	"time"
)

// readBufSize is larger than PacketSize so that a longer datagram is seen
// as longer (and discarded) rather than silently truncated to 36 bytes.
const readBufSize = 512

// Receiver reads datagrams from a UDP socket into a Monitor. It owns one
// read buffer and is meant for one goroutine, the same one that uses the
// Monitor. ReadOne does not allocate.
type Receiver struct {
	conn *net.UDPConn
	m    *Monitor
	buf  [readBufSize]byte
}

// NewReceiver returns a Receiver reading conn into m. conn stays owned by
// the caller; the Receiver only reads from it and sets its read deadline.
func NewReceiver(conn *net.UDPConn, m *Monitor) *Receiver {
	return &Receiver{conn: conn, m: m}
}

// ReadOne blocks for one datagram (honouring the connection's read
// deadline) and observes it with its arrival time from time.Now. It returns
// the read error, if any, unchanged.
func (r *Receiver) ReadOne() (SeqClass, error) {
	n, _, err := r.conn.ReadFromUDPAddrPort(r.buf[:])
	if err != nil {
		return ClassDiscarded, err
	}
	return r.m.Observe(r.buf[:n], time.Now()), nil
}

// RunOptions tunes Receiver.Run. The zero value is usable.
type RunOptions struct {
	// TickInterval is how often Monitor.Tick runs when nothing arrives;
	// default a quarter of the stream timeout (at least 1 ms). It bounds
	// the latency of timeout detection and of stopping on ctx.
	TickInterval time.Duration
	// ReportInterval, if positive, calls OnReport about that often, from the
	// receiving goroutine, so OnReport may use the Monitor freely.
	ReportInterval time.Duration
	OnReport       func(m *Monitor, now time.Time)
	// MaxPackets, if non-zero, makes Run return once the Monitor counted
	// that many valid packets.
	MaxPackets uint64
}

var aLongTimeAgo = time.Unix(1, 0)

// Run reads and observes datagrams until ctx is done, MaxPackets is reached
// (both return nil) or a read fails with anything but a deadline (returned).
// It leaves a read deadline set on the connection.
func (r *Receiver) Run(ctx context.Context, opts RunOptions) error {
	tick := opts.TickInterval
	if tick <= 0 {
		tick = max(r.m.cfg.StreamTimeout/4, time.Millisecond)
	}
	stop := context.AfterFunc(ctx, func() { r.conn.SetReadDeadline(aLongTimeAgo) })
	defer stop()

	now := time.Now()
	next := now.Add(tick)
	nextReport := now.Add(opts.ReportInterval)
	if err := r.conn.SetReadDeadline(next); err != nil {
		return err
	}
	for {
		if ctx.Err() != nil || (opts.MaxPackets != 0 && r.m.s.Packets >= opts.MaxPackets) {
			return nil
		}
		_, err := r.ReadOne()
		now = time.Now()
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if now.Before(next) {
			continue
		}
		r.m.Tick(now)
		if opts.ReportInterval > 0 && opts.OnReport != nil && !now.Before(nextReport) {
			opts.OnReport(r.m, now)
			nextReport = nextReport.Add(opts.ReportInterval)
			if nextReport.Before(now) {
				nextReport = now.Add(opts.ReportInterval)
			}
		}
		next = now.Add(tick)
		if ctx.Err() != nil {
			return nil
		}
		if err := r.conn.SetReadDeadline(next); err != nil {
			return err
		}
	}
}

// Listen runs a new Receiver on conn feeding m; see Receiver.Run.
func Listen(ctx context.Context, conn *net.UDPConn, m *Monitor, opts RunOptions) error {
	return NewReceiver(conn, m).Run(ctx, opts)
}
