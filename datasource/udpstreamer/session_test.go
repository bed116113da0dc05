package udpstreamer

import (
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
)

// TestSessionPolicyFirst holds the session for its first client: a CONNECT
// from another port is refused and counted (no CONFIG, no DATA) while the
// client lives, and accepted once it has disconnected.
func TestSessionPolicyFirst(t *testing.T) {
	cfg := scalarCfg()
	cfg.SessionPolicy = "first"
	s := start(t, cfg)
	drive(t, s, time.Millisecond)
	a := connected(t, s)
	b := newRawClient(t, s.LocalAddr())
	for range 3 {
		b.send(frame.Connect)
	}
	waitFor(t, func() bool { return s.m.connectsRefused.Get() == 3 })
	a.expect(20) // a keeps its stream
	b.conn.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if _, _, err := b.conn.ReadFromUDPAddrPort(b.buf); err == nil {
		t.Fatal("the refused client got an answer")
	}
	if st := s.snapshot(); st.Client != a.conn.LocalAddr().String() || s.m.replaced.Get() != 0 {
		t.Fatalf("session moved: %+v", st)
	}
	a.connect() // the client itself may CONNECT again
	a.send(frame.Disconnect)
	waitFor(t, func() bool { return !s.snapshot().Connected })
	b.connect()
	b.expect(5)
}

// TestSessionTimeoutLetsAnotherIn: under SessionPolicy first with a
// SessionTimeout, a client that sends nothing for that long is silent and
// another CONNECT takes the session; one that sends ACKs keeps it.
func TestSessionTimeoutLetsAnotherIn(t *testing.T) {
	cfg := scalarCfg()
	cfg.SessionPolicy, cfg.SessionTimeout = "first", time.Second
	s := start(t, cfg)
	drive(t, s, time.Millisecond)
	a := connected(t, s)
	b := newRawClient(t, s.LocalAddr())
	for range 6 { // a keeps the session with ACKs
		a.send(frame.Ack)
		b.send(frame.Connect)
		time.Sleep(50 * time.Millisecond)
	}
	if s.m.connectsRefused.Get() != 6 || s.snapshot().Client != a.conn.LocalAddr().String() {
		t.Fatalf("refused %d, status %+v", s.m.connectsRefused.Get(), s.snapshot())
	}
	time.Sleep(1200 * time.Millisecond) // a goes silent
	b.connect()
	b.expect(5)
	if s.m.replaced.Get() != 1 {
		t.Errorf("replaced %d", s.m.replaced.Get())
	}
}

// TestConnectWithPayloadIgnored sends a CONNECT carrying a payload, which
// the protocol's CONNECT never has: it is counted and starts nothing.
func TestConnectWithPayloadIgnored(t *testing.T) {
	s := start(t, scalarCfg())
	c := newRawClient(t, s.LocalAddr())
	b := frame.AppendHeader(nil, frame.Header{Type: frame.Connect, TotalFragments: 1, PayloadBytes: 4})
	b = append(b, 1, 2, 3, 4)
	if _, err := c.conn.WriteToUDPAddrPort(b, s.LocalAddr()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return s.m.bad[badConnectPayload].Get() == 1 })
	if s.snapshot().Connected || s.m.connects.Get() != 0 {
		t.Error("a CONNECT with a payload started a session")
	}
}

// TestSessionLogsRateLimited sends 2000 CONNECTs from 200 ports: the
// session lines logged stay within the limiter's burst plus one per second
// of the run, and the rest are counted.
func TestSessionLogsRateLimited(t *testing.T) {
	s, log := startLogged(t, scalarCfg())
	clients := make([]*rawClient, 200)
	for i := range clients {
		clients[i] = newRawClient(t, s.LocalAddr())
	}
	t0 := time.Now()
	for range 10 {
		for _, c := range clients {
			c.send(frame.Connect)
		}
		time.Sleep(time.Millisecond)
	}
	waitFor(t, func() bool { return s.m.connects.Get()+s.m.controlDropped.Get() == 2000 })
	el := time.Since(t0)
	lines := strings.Count(log.String(), "msg=\"client ")
	if limit := sessionLogBurst + int(el/sessionLogEvery) + 1; lines > limit {
		t.Errorf("%d session lines in %v, limit %d", lines, el, limit)
	}
	if got := uint64(lines) + s.m.sessionLogsSuppressed.Get(); got != s.m.connects.Get() {
		t.Errorf("logged %d + suppressed %d != connects %d", lines, s.m.sessionLogsSuppressed.Get(), s.m.connects.Get())
	}
	t.Logf("%d CONNECTs applied in %v: %d lines, %d suppressed", s.m.connects.Get(), el, lines, s.m.sessionLogsSuppressed.Get())
}
