package sendpath

import (
	"net"
	"net/netip"
	"time"
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
}

// UnreachableHold is the hold that suits the kernel's rate limit on ICMP
// errors: a few of its intervals (about one a second per host).
const UnreachableHold = 5 * time.Second

// newDestWatch watches the socket of q (see EnableICMPErrors). A
// destination is reachable again hold after the last port-unreachable
// (ICMP errors are rate-limited per host, about one a second on Linux, so
// hold should be a few seconds).
func newDestWatch(q *ErrQueue, hold time.Duration) *DestWatch {
	return &DestWatch{q: q, hold: int64(hold)}
}

// SendFailed is called after a send failed: it reads what the kernel
// queued and reports whether the destination has just become
// unreachable; now is monotonic ns.
func (w *DestWatch) SendFailed(now int64) (became bool) {
	seen := false
	w.q.Read(func(e ICMPError) {
		if e.PortUnreachable {
			seen = true
			w.n++
		}
	})
	if !seen {
		return false
	}
	w.last = now
	became = !w.gone
	w.gone = true
	return became
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
