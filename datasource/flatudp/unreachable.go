package flatudp

import (
	"net"

	"github.com/streamerd/streamerd/datasource/internal/sendpath"
	"github.com/streamerd/streamerd/rt/cpu"
)

// unreachableHold is how long after the last ICMP port unreachable the
// destination counts as reachable again. A variable for tests.
var unreachableHold = sendpath.UnreachableHold

// openWatch prepares the sends to the destination and the watch for ICMP
// port unreachable on conn.
func (s *Sender) openWatch(conn *net.UDPConn) (err error) {
	s.out, s.watch, err = sendpath.NewWatchedSender(conn, s.dst, unreachableHold)
	return err
}

// sendWatched sends the datagram b, again once if an ICMP error queued
// for an earlier one failed it (sendpath.DestWatch.Send), and counts the
// port unreachables: the destination has no receiver. The gauge says so
// and one line is logged when it starts; sender thread only.
func (s *Sender) sendWatched(b []byte) error {
	n0 := s.watch.PortUnreachables()
	became, err := s.watch.Send(s.out, b)
	if n := s.watch.PortUnreachables() - n0; n > 0 {
		s.m.unreachables.Add(int(n))
	}
	if became {
		s.m.unreachable.Set(1)
		s.log.Warn("destination unreachable: no receiver listens there (ICMP port unreachable); sending on", "destination", s.dst.String())
	}
	return err
}

// watchTick ends an unreachable spell once no ICMP port unreachable came
// for unreachableHold; sender thread only.
func (s *Sender) watchTick() {
	if s.watch.Tick(cpu.MonotonicNanos()) {
		s.m.unreachable.Set(0)
		s.log.Info("destination reachable again", "destination", s.dst.String(),
			"port_unreachables_total", s.watch.PortUnreachables())
	}
}
