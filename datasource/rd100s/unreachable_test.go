package rd100s

import (
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource/rd100s/wire"
	"github.com/streamerd/streamerd/internal/dstest"
	"github.com/streamerd/streamerd/internal/testenv"
)

// TestReceiverGoneAndBack emits at 1 kHz to a port nobody listens on: the
// ICMP port unreachable shows in the gauge, the status and one warning;
// once a receiver listens there and no ICMP comes for the hold time, the
// gauge clears with one line.
func TestReceiverGoneAndBack(t *testing.T) {
	defer func(h time.Duration) { unreachableHold = h }(unreachableHold)
	unreachableHold = 200 * time.Millisecond
	probe := testenv.Loopback(t)
	port := probe.LocalAddr().(*net.UDPAddr).Port
	probe.Close()
	cfg := testConfig(1000)
	cfg.DestPort = port
	var log testenv.Buffer
	e, err := New(cfg, metrics.NewSet(), slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	dstest.Start(t, e)
	waitUntil(t, 5*time.Second, func() bool { return e.snapshot().DestinationUnreachable })
	back, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
	if err != nil {
		t.Skipf("port %d taken meanwhile: %v", port, err)
	}
	defer back.Close()
	waitUntil(t, 5*time.Second, func() bool { return !e.snapshot().DestinationUnreachable })
	if e.m.unreachables.Get() == 0 {
		t.Error("no ICMP port unreachable counted")
	}
	e.Close() // the logging goroutine has written everything
	out := log.String()
	if strings.Count(out, "destination unreachable") != 1 || strings.Count(out, "destination reachable again") != 1 {
		t.Errorf("log:\n%s", out)
	}
}

func waitUntil(t *testing.T, d time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", d)
		}
	}
}

// TestEveryPacketGoesOutWithNoReceiver emits to a port nobody listens on:
// each packet draws an ICMP port unreachable, which fails the next send
// on the socket, and the emitter sends that packet again, so a receiver
// that starts late (here a capture of the loopback traffic) sees every
// seq from its first. The ICMP errors are counted, not the sends.
func TestEveryPacketGoesOutWithNoReceiver(t *testing.T) {
	probe := testenv.Loopback(t)
	port := probe.LocalAddr().(*net.UDPAddr).Port
	probe.Close()
	cfg := testConfig(1000)
	cfg.DestPort = port
	e, err := New(cfg, metrics.NewSet(), discard())
	if err != nil {
		t.Fatal(err)
	}
	dstest.Start(t, e)
	waitUntil(t, 5*time.Second, func() bool { return e.m.unreachables.Get() > 0 })
	capture := testenv.CaptureUDP(t, port)
	sent0 := e.m.sent.Get()
	waitUntil(t, 10*time.Second, func() bool { return e.m.sent.Get() >= sent0+300 })
	e.Close()
	// Wait until the capture holds them all: the emitter is closed, so
	// the count stops growing.
	testenv.Eventually(t, "the capture to settle", 20*time.Second, func() bool {
		n := len(capture.Captured())
		time.Sleep(100 * time.Millisecond)
		return n >= 300 && len(capture.Captured()) == n
	})
	got, err := capture.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 300 {
		t.Fatalf("captured %d packets of at least 300 sent", len(got))
	}
	var first uint32
	for i, b := range got {
		p, err := wire.ParsePacket(b)
		if err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
		if i == 0 {
			first = p.Seq
		}
		if p.Seq != first+uint32(i) {
			t.Fatalf("packet %d has seq %d, want %d: a packet did not go out", i, p.Seq, first+uint32(i))
		}
	}
	if n := e.m.sendErrors.Get(); n != 0 {
		t.Errorf("%d send errors", n)
	}
}
