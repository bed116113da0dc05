package flatudp

import (
	"net"
	"time"

	"github.com/streamerd/streamerd/datasource/internal/sendpath"
)

// unreachableHold is how long after the last ICMP port unreachable the
// destination counts as reachable again. A variable for tests.
var unreachableHold = sendpath.UnreachableHold

// openWatch prepares the sends to the destination and the watch for ICMP
// port unreachable on conn.
func (s *Sender) openWatch(conn *net.UDPConn) (err error) {
	s.out, s.watch, err = sendpath.NewWatchedSender(conn, s.dst, unreachableHold)
	s.t0 = time.Now()
	return err
}

// sendFailed looks for ICMP port unreachable behind a failed send: the
// destination has no receiver. The gauge says so and one line is logged
// when it starts; sender thread only.
func (s *Sender) sendFailed() {
	n0 := s.watch.PortUnreachables()
	became := s.watch.SendFailed(int64(time.Since(s.t0)))
	s.m.unreachables.Add(int(s.watch.PortUnreachables() - n0))
	if became {
		s.m.unreachable.Set(1)
		s.log.Warn("destination unreachable: no receiver listens there (ICMP port unreachable)", "destination", s.dst.String())
	}
}

// watchTick ends an unreachable spell once no ICMP port unreachable came
// for unreachableHold; sender thread only.
func (s *Sender) watchTick() {
	if s.watch.Tick(int64(time.Since(s.t0))) {
		s.m.unreachable.Set(0)
		s.log.Info("destination reachable again", "destination", s.dst.String(),
			"port_unreachables_total", s.watch.PortUnreachables())
	}
}
