package client

import (
	"errors"
	"fmt"
	"math/bits"
	"net"
	"net/netip"
	"sync/atomic"

	"github.com/streamerd/streamerd/datasource/flatudp/wire"
)

// maxDatagram is the receive buffer: larger than any UDP payload (IPv4
// 65507, IPv6 without jumbograms 65527), so a size is never truncated.
const maxDatagram = 1 << 16

// Receiver reads datagrams of one Layout from a UDP socket. It keeps the
// ones of the expected size, drops the others, and reports each of the
// first 16 distinct wrong sizes once.
//
// Read belongs to one goroutine, and so do the bytes it returns; Stats
// and Close may be called from any goroutine. The receiver owns
// one 64 KiB buffer; Read allocates nothing except the error of a newly
// seen wrong size.
type Receiver struct {
	conn   *net.UDPConn
	layout *wire.Layout
	buf    []byte

	// seen has one bit per datagram size already reported. It is written
	// by Read's goroutine only; Stats reads it atomically.
	seen [maxDatagram/64 + 1]atomic.Uint64

	datagrams atomic.Uint64
	bytes     atomic.Uint64
	wrongSize atomic.Uint64
	reported  int // wrong sizes Read has returned an error for (Read's goroutine)
}

// reportSizes is how many distinct wrong sizes Read reports: a sender of
// every size makes at most this many errors (and log lines), the rest
// only counts.
const reportSizes = 16

// Stats are a Receiver's counters since it was made.
type Stats struct {
	Datagrams  uint64 // datagrams received, any size: of the expected size, or WrongSize
	Bytes      uint64 // payload bytes of those datagrams
	WrongSize  uint64 // datagrams dropped for their size
	WrongSizes int    // distinct wrong sizes seen (the first 16 reported once each)
}

// NewReceiver returns a receiver of l's datagrams on conn. The receiver
// takes over conn: Close closes it; the caller may still set its read
// deadline (a Read waiting then returns the error). Without a conn or a
// layout Read returns an error; without a conn, so does Close.
func NewReceiver(conn *net.UDPConn, l *wire.Layout) *Receiver {
	return &Receiver{conn: conn, layout: l, buf: make([]byte, maxDatagram)}
}

// errNoReceiver is returned by Read and Close on a nil or zero Receiver,
// or one made without a conn or a layout.
var errNoReceiver = errors.New("flatudp/client: Receiver without a socket or a layout (make one with NewReceiver)")

// usable reports whether r has a socket and a layout to read with.
func (r *Receiver) usable() bool { return r != nil && r.conn != nil && r.layout != nil }

// Close closes the socket; a blocked Read returns net.ErrClosed.
func (r *Receiver) Close() error {
	if r == nil || r.conn == nil {
		return errNoReceiver
	}
	if err := r.conn.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// Read blocks until a datagram of the layout's size arrives and returns it
// with its sender. The bytes are the receiver's buffer, valid until the next
// Read. A datagram of any other size is dropped and counted; the first of
// each distinct size, for the first 16 sizes, makes Read return it (for its
// size) with its sender and an error matching wire.ErrSize, and the caller
// may keep reading. Socket errors (a deadline, net.ErrClosed) are returned
// as they are.
func (r *Receiver) Read() ([]byte, netip.AddrPort, error) {
	if !r.usable() {
		return nil, netip.AddrPort{}, errNoReceiver
	}
	for {
		n, from, err := r.conn.ReadFromUDPAddrPort(r.buf)
		if err != nil {
			return nil, from, err
		}
		r.datagrams.Add(1)
		r.bytes.Add(uint64(n))
		if n == r.layout.Size {
			return r.buf[:n], from, nil
		}
		r.wrongSize.Add(1)
		w, bit := &r.seen[n/64], uint64(1)<<(n%64)
		if w.Load()&bit == 0 {
			w.Or(bit)
			if r.reported < reportSizes {
				r.reported++
				return r.buf[:n], from, fmt.Errorf("%w: %d bytes, expected %d", wire.ErrSize, n, r.layout.Size)
			}
		}
	}
}

// Stats returns the counters. Each is read atomically; together they are a
// near-snapshot while Read runs.
func (r *Receiver) Stats() Stats {
	if r == nil {
		return Stats{}
	}
	return Stats{
		Datagrams:  r.datagrams.Load(),
		Bytes:      r.bytes.Load(),
		WrongSize:  r.wrongSize.Load(),
		WrongSizes: r.distinctWrongSizes(),
	}
}

func (r *Receiver) distinctWrongSizes() int {
	n := 0
	for i := range r.seen {
		n += bits.OnesCount64(r.seen[i].Load())
	}
	return n
}

// wrongSizes returns the distinct wrong sizes seen so far, ascending.
func (r *Receiver) wrongSizes() []int {
	var sizes []int
	for i := range r.seen {
		w := r.seen[i].Load()
		for b := 0; w != 0; b++ {
			if w&1 != 0 {
				sizes = append(sizes, i*64+b)
			}
			w >>= 1
		}
	}
	return sizes
}
