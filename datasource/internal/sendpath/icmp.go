package sendpath

import (
	"errors"
	"net"
	"net/netip"
	"syscall"
	"time"

	"github.com/streamerd/streamerd/rt/cpu"
)

// ICMPError is one ICMP error the kernel queued on a socket for a
// datagram it sent: to whom the datagram went, and whether the answer was
// port unreachable (nobody listens there) or another error (host or
// network unreachable, a path MTU below the datagram, ...).
type ICMPError struct {
	Dst             netip.AddrPort
	PortUnreachable bool
}

// DestWatch tells whether the one destination of a sending socket answers
// with ICMP port-unreachable: its receiver is gone. Owned by the sending
// thread, which reports every failed send (SendFailed) and asks now and
// then whether the destination came back (Tick). It makes no system call
// unless a send failed, and never allocates.
type DestWatch struct {
	q    *ErrQueue
	hold int64 // ns without ICMP port-unreachable after which the destination is back
	gone bool
	last int64 // monotonic ns of the last port-unreachable
	n    uint64

	onError func(ICMPError) // w.count, made once: reading allocates nothing
	seen    bool            // a port unreachable in the read under way
}

// UnreachableHold is the hold that suits the kernel's rate limit on ICMP
// errors: a few of its intervals (about one a second per host).
const UnreachableHold = 5 * time.Second

// newDestWatch watches the socket of q (see EnableICMPErrors). A
// destination is reachable again hold after the last port-unreachable
// (ICMP errors are rate-limited per host, about one a second on Linux, so
// hold should be a few seconds).
func newDestWatch(q *ErrQueue, hold time.Duration) *DestWatch {
	w := &DestWatch{q: q, hold: int64(hold)}
	w.onError = w.count
	return w
}

// count counts one queued ICMP error, if port unreachable.
func (w *DestWatch) count(e ICMPError) {
	if e.PortUnreachable {
		w.seen = true
		w.n++
	}
}

// SendFailed is called after a send failed: it reads what the kernel
// queued and reports whether the destination has just become
// unreachable; now is monotonic ns.
func (w *DestWatch) SendFailed(now int64) (became bool) {
	became, _ = w.readQueue(now)
	return became
}

// readQueue reads the ICMP errors queued, counts the port unreachables
// and returns whether the destination has just become unreachable and
// how many errors were queued.
func (w *DestWatch) readQueue(now int64) (became bool, queued int) {
	w.seen = false
	queued = w.q.Read(w.onError)
	if !w.seen {
		return false, queued
	}
	w.last = now
	became = !w.gone
	w.gone = true
	return became, queued
}

// Send sends b, one datagram, through out, to the watched destination, as
// MARTe2's UDPSender does: whether or not anyone listens there. An ICMP
// error the kernel queued for an earlier datagram (port unreachable: no
// receiver) fails the next send on the socket, and that datagram would
// be lost though nothing is wrong with it; Send then reads the queue
// (what SendFailed does) and sends b once more. It reports whether the
// destination has just become unreachable, and the error of the last
// try. It allocates nothing.
func (w *DestWatch) Send(out *Sender, b []byte) (became bool, err error) {
	if _, err = out.Send(b, len(b)); err == nil {
		return false, nil
	}
	became, queued := w.readQueue(cpu.MonotonicNanos())
	if queued > 0 || errors.Is(err, syscall.ECONNREFUSED) {
		_, err = out.Send(b, len(b))
	}
	return became, err
}

// Tick reports whether an unreachable destination has come back: no
// port-unreachable for hold.
func (w *DestWatch) Tick(now int64) (back bool) {
	if w.gone && now-w.last >= w.hold {
		w.gone = false
		return true
	}
	return false
}

// PortUnreachables returns the ICMP port-unreachable errors seen.
func (w *DestWatch) PortUnreachables() uint64 { return w.n }

// NewWatchedSender returns a Sender to the one destination dst of conn, with a
// DestWatch on the ICMP errors its sends meet (see newDestWatch for hold):
// what a producer that streams to one receiver needs.
func NewWatchedSender(conn *net.UDPConn, dst netip.AddrPort, hold time.Duration) (*Sender, *DestWatch, error) {
	out, err := NewSender(conn, MethodAuto)
	if err != nil {
		return nil, nil, err
	}
	q, err := EnableICMPErrors(conn)
	if err != nil {
		return nil, nil, err
	}
	out.SetDestination(dst)
	return out, newDestWatch(q, hold), nil
}
