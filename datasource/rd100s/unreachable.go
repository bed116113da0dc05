package rd100s

import (
	"net"

	"github.com/streamerd/streamerd/datasource/internal/sendpath"
)

// unreachableHold is how long after the last ICMP port unreachable the
// destination counts as reachable again. A variable for tests.
var unreachableHold = sendpath.UnreachableHold

// openWatch prepares the sends to the destination and the watch for ICMP
// port unreachable on conn.
func (e *Encoder) openWatch(conn *net.UDPConn) (err error) {
	e.out, e.watch, err = sendpath.NewWatchedSender(conn, e.dst, unreachableHold)
	e.reach = make(chan bool, 4)
	return err
}

// sendWatched sends the packet b, again once if an ICMP error queued for
// an earlier one failed it (sendpath.DestWatch.Send), and counts the port
// unreachables: the receiver is gone. Network thread only; the line is
// logged by the logging goroutine.
func (e *Encoder) sendWatched(b []byte) error {
	n0 := e.watch.PortUnreachables()
	became, err := e.watch.Send(e.out, b)
	if n := e.watch.PortUnreachables() - n0; n > 0 {
		e.m.unreachables.Add(int(n))
	}
	if became {
		e.m.unreachable.Set(1)
		e.note(true)
	}
	return err
}

// watchTick ends an unreachable spell once no ICMP port unreachable came
// for unreachableHold; network thread only.
func (e *Encoder) watchTick(now int64) {
	if e.watch.Tick(now) {
		e.m.unreachable.Set(0)
		e.note(false)
	}
}

// note hands a change of reachability to the logging goroutine, without
// waiting: a change it has no room for is not logged (the gauge has it).
func (e *Encoder) note(gone bool) {
	select {
	case e.reach <- gone:
	default:
		e.m.eventsUnlogged.Inc()
	}
}

// logReach logs a change of reachability; logging goroutine.
func (e *Encoder) logReach(gone bool) {
	if gone {
		e.log.Warn("destination unreachable: no receiver listens there (ICMP port unreachable)", "dest", e.dst.String())
		return
	}
	e.log.Info("destination reachable again", "dest", e.dst.String(), "port_unreachables_total", e.m.unreachables.Get())
}
