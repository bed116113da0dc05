package udpstreamer

import (
	"errors"
	"net"
	"net/netip"
	"syscall"
	"time"

	"github.com/streamerd/streamerd/datasource/internal/sendpath"
	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
)

type controlKind uint8

const (
	connect controlKind = iota
	disconnect
	unreachable // ICMP port unreachable for from
)

type controlEvent struct {
	kind controlKind
	from netip.AddrPort
}

// controlQueue bounds the session changes waiting for the network thread;
// past it, a CONNECT storm is dropped and counted.
const controlQueue = 64

// receive reads client datagrams until the socket closes. It allocates
// nothing per datagram and logs nothing per datagram. A read error means
// the kernel has an ICMP error for the socket: the queue is read and a
// port unreachable from the client ends its session.
func (s *Streamer) receive() {
	defer close(s.recvDone)
	buf := make([]byte, 65536)
	for {
		n, from, err := s.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if s.stopping.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			if !errors.Is(err, syscall.ECONNREFUSED) {
				s.m.recvErrors.Inc()
			}
			s.recvErrQ.Read(s.onICMPFn)
			continue
		}
		s.handleDatagram(buf[:n], from)
	}
}

// onICMP queues the end of the session of a client whose port is
// unreachable; the network thread checks it is still the client.
func (s *Streamer) onICMP(e sendpath.ICMPError) {
	if !e.PortUnreachable {
		s.m.icmpOther.Inc()
		return
	}
	s.m.icmpUnreachable.Inc()
	// The error names an IPv4 client plainly, where a dual-stack socket
	// (Address "", the default) knows it as ::ffff:a.b.c.d.
	if client := s.sessionClient(); e.Dst.Addr().Unmap() == client.Addr().Unmap() && e.Dst.Port() == client.Port() {
		s.queue(controlEvent{kind: unreachable, from: client})
	}
}

// handleDatagram classifies one datagram from the server socket.
func (s *Streamer) handleDatagram(b []byte, from netip.AddrPort) {
	h, _, err := frame.ParseHeader(b)
	if err != nil {
		s.m.badDatagram(err).Inc()
		return
	}
	client := s.sessionClient()
	if from == client {
		s.heard.Store(int64(time.Since(s.epoch)))
	}
	switch h.Type {
	case frame.Connect:
		switch {
		case h.PayloadBytes != 0: // the protocol's CONNECT has none
			s.m.bad[badConnectPayload].Inc()
		case !s.allowed(from.Addr()):
			s.m.refused.Inc()
		case client.IsValid() && from != client && s.sessionHeld():
			// Refused here too, so a flood cannot crowd the queue.
			s.m.connectsRefused.Inc()
		default:
			s.queue(controlEvent{kind: connect, from: from})
		}
	case frame.Disconnect:
		// Only the client's own DISCONNECT can matter: drop strangers'
		// here, so a flood of them cannot crowd CONNECTs out of the queue.
		if from != client {
			s.m.strangerDisconnects.Inc()
			return
		}
		s.queue(controlEvent{kind: disconnect, from: from})
	case frame.Ack:
		s.m.acks.Inc()
	default: // DATA or CONFIG sent to the server
		s.m.bad[badType].Inc()
	}
}

// sessionHeld reports whether, under SessionPolicy first, the session's
// client holds it against a CONNECT from another address: it has not gone
// silent (nothing from it for SessionTimeout, when set). Any goroutine.
func (s *Streamer) sessionHeld() bool {
	if s.cfg.SessionPolicy != policyFirst {
		return false
	}
	if s.cfg.SessionTimeout <= 0 {
		return true
	}
	return int64(time.Since(s.epoch))-s.heard.Load() < int64(s.cfg.SessionTimeout)
}

func (s *Streamer) queue(ev controlEvent) {
	select {
	case s.control <- ev:
		s.sem.Post() // wake the network thread even without data
	default:
		s.m.controlDropped.Inc()
	}
}

// sessionClient returns the address of the client holding the session,
// the zero AddrPort while none does. Any goroutine.
func (s *Streamer) sessionClient() netip.AddrPort {
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	return s.clientCopy
}

func (s *Streamer) allowed(a netip.Addr) bool {
	if len(s.cfg.AllowedClients) == 0 {
		return true
	}
	a = a.Unmap()
	for _, p := range s.cfg.AllowedClients {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// applyControl applies queued session changes in order, then answers the
// final CONNECT, if any, with CONFIG.
func (s *Streamer) applyControl() {
	sendConfig := false
	for {
		select {
		case ev := <-s.control:
			switch ev.kind {
			case connect:
				if !s.acceptConnect(ev.from) {
					continue
				}
				sendConfig = true
			case disconnect:
				if !s.client.IsValid() || ev.from != s.client {
					s.m.strangerDisconnects.Inc()
					continue
				}
				s.m.disconnects.Inc()
				s.setClient(netip.AddrPort{}, "disconnect")
				sendConfig = false
			case unreachable:
				if ev.from != s.client {
					continue // an earlier client's, or already handled
				}
				s.m.clientsUnreachable.Inc()
				s.setClient(netip.AddrPort{}, "unreachable (ICMP port unreachable)")
				sendConfig = false
			}
		default:
			if sendConfig {
				s.sendConfig()
			}
			return
		}
	}
}

// acceptConnect starts a session for from, or refuses it under
// SessionPolicy first; it reports whether it did.
func (s *Streamer) acceptConnect(from netip.AddrPort) bool {
	if s.client.IsValid() && s.client != from && s.sessionHeld() {
		s.m.connectsRefused.Inc()
		s.logSession("CONNECT refused: another client holds the session (SessionPolicy first)",
			"from", from.String(), "client", s.client.String())
		return false
	}
	s.m.connects.Inc()
	if s.client.IsValid() && s.client != from {
		s.m.replaced.Inc()
	}
	s.heard.Store(int64(time.Since(s.epoch)))
	s.setClient(from, "connect")
	s.counter = 0
	return true
}

func (s *Streamer) setClient(c netip.AddrPort, why string) {
	prev := s.client
	s.client = c
	s.sender.SetDestination(c)
	if c.IsValid() {
		s.m.connected.Set(1)
	} else {
		s.m.connected.Set(0)
	}
	s.statusMu.Lock()
	s.clientCopy = c
	s.status.Connected = c.IsValid()
	s.status.Client = ""
	if c.IsValid() {
		s.status.Client = c.String()
	}
	s.status.Since = time.Now().UTC().Format(time.RFC3339Nano)
	s.statusMu.Unlock()
	switch {
	case c.IsValid() && prev.IsValid() && prev != c:
		s.logSession("client replaced", "client", c.String(), "previous", prev.String())
	case c.IsValid() && prev == c:
		s.logSession("client reconnected", "client", c.String())
	case c.IsValid():
		s.logSession("client connected", "client", c.String())
	default:
		s.logSession("client disconnected", "client", prev.String(), "reason", why)
	}
}

func (s *Streamer) sendConfig() {
	s.cfgLayout.PutHeaders(s.cfgWire, frame.Config, s.cfgCounter)
	s.cfgCounter++
	n, err := s.sender.Send(s.cfgWire, s.cfgLayout.SegmentSize())
	s.m.configFragments.Add(n)
	if err != nil {
		s.m.configSendErrors.Inc()
		s.sendFailed(err)
		return
	}
	s.m.configsSent.Inc()
}

// sendFailed reads the ICMP errors behind a refused send on the network
// thread: the receive goroutine reads them after a read error, but a send
// may meet the error first and clear it.
func (s *Streamer) sendFailed(err error) {
	if err == syscall.ECONNREFUSED || errors.Is(err, syscall.ECONNREFUSED) {
		s.netErrQ.Read(s.onICMPFn)
	}
}

// Session log limits: a burst of sessionLogBurst lines, then one per
// sessionLogEvery; the lines left out are counted and their number is
// given with the next line logged.
const (
	sessionLogBurst = 10
	sessionLogEvery = time.Second
)

// logLimiter is a token bucket for the session log lines of the network
// thread (its only user).
type logLimiter struct {
	tokens     float64
	last       time.Time
	suppressed int
}

// logSession logs a session line unless the limiter holds it back, in
// which case it is counted.
func (s *Streamer) logSession(msg string, args ...any) {
	l := &s.sessLog
	now := time.Now()
	if l.last.IsZero() {
		l.tokens = sessionLogBurst
	} else {
		l.tokens = min(sessionLogBurst, l.tokens+now.Sub(l.last).Seconds()/sessionLogEvery.Seconds())
	}
	l.last = now
	if l.tokens < 1 {
		l.suppressed++
		s.m.sessionLogsSuppressed.Inc()
		return
	}
	l.tokens--
	if l.suppressed > 0 {
		args = append(args, "suppressed_before", l.suppressed)
		l.suppressed = 0
	}
	s.log.Info(msg, args...)
}
