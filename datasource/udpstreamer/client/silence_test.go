package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/internal/udpstest"
)

// TestSilenceReportedOnce: a stream that stops makes Next report one
// silence, which also reads as a deadline; the first update after it
// carries the silence's length.
func TestSilenceReportedOnce(t *testing.T) {
	srv, c, p := scalarSession(t, Options{Silence: 100 * time.Millisecond})
	var u Update
	for i := range uint32(3) {
		send(t, srv, i, p)
		expect(t, c, &u, i, 0)
		if u.Silence != 0 {
			t.Fatalf("update %d: Silence %v", i, u.Silence)
		}
	}
	err := nextErr(c, &u)
	var se *silenceError
	if !errors.Is(err, ErrSilence) || !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &se) || se.After != 100*time.Millisecond {
		t.Fatalf("Next on a stopped stream: %v", err)
	}
	if st := c.Stats(); st.Silences != 1 || !st.Silent || st.LastUpdate.IsZero() {
		t.Errorf("stats after the silence: %+v", st)
	}
	// Still silent: the caller's own deadline, not a second silence.
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if err := c.Next(&u); !errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, ErrSilence) {
		t.Fatalf("Next while still silent: %v", err)
	}
	send(t, srv, 3, p)
	expect(t, c, &u, 3, 0)
	if u.Silence < 100*time.Millisecond || u.SessionStart {
		t.Errorf("first update after the silence: Silence %v SessionStart %v", u.Silence, u.SessionStart)
	}
	if st := c.Stats(); st.Silences != 1 || st.Silent || st.Reconnects != 0 {
		t.Errorf("stats after the stream resumed: %+v", st)
	}
}

// TestSilenceByDefault: with the zero Options a session that never sends
// DATA is reported silent after MinSilence.
func TestSilenceByDefault(t *testing.T) {
	_, c := session(t, scalarA(), 1400)
	var u Update
	if err := nextErr(c, &u); !errors.Is(err, ErrSilence) {
		t.Fatalf("Next: %v, want a silence", err)
	}
	if st := c.Stats(); st.Silences != 1 || !st.LastUpdate.IsZero() {
		t.Errorf("stats %+v", st)
	}
	c2 := dial(t, udpstest.NewServer(t, burstSigs(), 1400), Options{Silence: -1})
	connect(t, c2)
	c2.SetReadDeadline(time.Now().Add(minSilence + 200*time.Millisecond))
	if err := c2.Next(&u); errors.Is(err, ErrSilence) || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Next with detection off: %v", err)
	}
}

// TestLateCallerIsNotSilence: updates queued while the caller was busy
// for longer than the silence timeout are returned, not a silence.
func TestLateCallerIsNotSilence(t *testing.T) {
	srv, c, p := scalarSession(t, Options{Silence: 50 * time.Millisecond})
	var u Update
	send(t, srv, 0, p)
	expect(t, c, &u, 0, 0)
	send(t, srv, 1, p)
	time.Sleep(200 * time.Millisecond) // the caller is busy
	expect(t, c, &u, 1, 0)
	if st := c.Stats(); st.Silences != 0 || u.Silence != 0 {
		t.Errorf("silences %d, Silence %v", st.Silences, u.Silence)
	}
}

// TestReconnectAfterTakeover: another client takes the session with one
// CONNECT; the displaced client notices the silence, sends CONNECT again
// and carries on in a new session.
func TestReconnectAfterTakeover(t *testing.T) {
	srv, c, p := scalarSession(t, Options{Silence: 100 * time.Millisecond, Reconnect: true})
	var u Update
	send(t, srv, 0, p)
	expect(t, c, &u, 0, 0)

	srv.Displace(t)
	connected := srv.Connected()
	err := nextErr(c, &u)
	var se *silenceError
	if !errors.As(err, &se) || !se.Reconnecting || !strings.Contains(err.Error(), "sending CONNECT again") {
		t.Fatalf("Next after the takeover: %v", err)
	}
	select {
	case <-connected:
	case <-time.After(waitLong):
		t.Fatal("no CONNECT after the silence")
	}
	if srv.Client() != c.localAddr() {
		t.Fatalf("session is %v, want %v", srv.Client(), c.localAddr())
	}
	send(t, srv, 0, p) // the server restarted its counter at the CONNECT
	expect(t, c, &u, 0, 0)
	if !u.SessionStart || u.Silence < 100*time.Millisecond {
		t.Errorf("first update after reconnecting: SessionStart %v Silence %v", u.SessionStart, u.Silence)
	}
	if st := c.Stats(); st.Silences != 1 || st.Reconnects < 1 || st.Silent {
		t.Errorf("stats %+v", st)
	}
}

// TestReconnectAfterServerRestart: a server restarted on the same address
// (its CONFIG counter at 0 again) answers the CONNECT of a silent client
// with its new CONFIG, which the client takes: ErrConfigChanged for a new
// signal list, then a new session from the restarted counters. Before,
// the client took CONFIG 0 for the one it had completed, dropped it, and
// decoded the new stream with the old signal list, or dropped as stale as
// many updates as the old session had delivered.
func TestReconnectAfterServerRestart(t *testing.T) {
	for _, changed := range []bool{false, true} {
		t.Run(fmt.Sprintf("changed=%v", changed), func(t *testing.T) {
			srv, c, p := scalarSession(t, Options{Silence: 100 * time.Millisecond, Reconnect: true})
			var u Update
			for i := range uint32(20) {
				send(t, srv, i, p)
				expect(t, c, &u, i, 0)
			}
			srv.Restart()
			sigs := scalarA()
			if changed {
				sigs = []datasource.Signal{scalar("A", datasource.Int32, ""), scalar("B", datasource.Float64, "V")}
				if err := srv.SetSignals(sigs); err != nil {
					t.Fatal(err)
				}
				p = payload(t, sigs, 1, nil)
			}
			connected := srv.Connected()
			if err := nextErr(c, &u); !errors.Is(err, ErrSilence) {
				t.Fatalf("Next after the restart: %v, want a silence", err)
			}
			select {
			case <-connected:
			case <-time.After(waitLong):
				t.Fatal("no CONNECT after the silence")
			}
			send(t, srv, 0, p)
			err := nextErr(c, &u)
			if changed {
				if !errors.Is(err, ErrConfigChanged) {
					t.Fatalf("first Next after the restart: %v, want ErrConfigChanged", err)
				}
				if got := c.Config().Signals; len(got) != 2 || got[0].Type != datasource.Int32 {
					t.Fatalf("Config after the restart: %+v", got)
				}
				send(t, srv, 1, p)
				err = nextErr(c, &u)
			}
			if err != nil {
				t.Fatalf("first update after the restart: %v", err)
			}
			if !u.SessionStart {
				t.Errorf("first update after the restart: not SessionStart (counter %d)", u.Counter)
			}
			if st := c.Stats(); st.Dropped != 0 {
				t.Errorf("stats %+v: updates of the new session dropped", st)
			}
		})
	}
}

// TestReconnectBackoff: the CONNECTs of one silence come at the silence
// timeout, then twice that, and so on up to MaxReconnectInterval; a new
// silence soon after starts where the previous one left off.
func TestReconnectBackoff(t *testing.T) {
	srv := udpstest.NewServer(t, burstSigs(), 1400)
	c := dial(t, srv, Options{Silence: 3 * time.Second, Reconnect: true})
	t0 := time.Now()
	c.startReconnecting(t0)
	var gaps []time.Duration
	for range 6 {
		prev := c.sil.lastTry
		c.reconnect(c.sil.nextTry)
		gaps = append(gaps, c.sil.lastTry.Sub(prev))
	}
	want := []time.Duration{3, 6, 12, 24, 30, 30}
	for i := range want {
		if gaps[i] != want[i]*time.Second {
			t.Fatalf("intervals %v, want %v s", gaps, want)
		}
	}
	c.startReconnecting(c.sil.lastTry.Add(time.Minute))
	if d := c.sil.nextTry.Sub(c.sil.lastTry); d != maxReconnectInterval {
		t.Errorf("a silence one minute later: first interval %v, want %v", d, maxReconnectInterval)
	}
	c.startReconnecting(c.sil.lastTry.Add(time.Hour))
	if d := c.sil.nextTry.Sub(c.sil.lastTry); d != 3*time.Second {
		t.Errorf("a silence an hour later: first interval %v, want 3s", d)
	}
	if st := c.Stats(); st.Reconnects != 9 {
		t.Errorf("Reconnects %d, want 9", st.Reconnects)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	for srv.Connects() < 9 && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	if n := srv.Connects(); n != 9 {
		t.Errorf("server saw %d CONNECTs, want 9", n)
	}
}

// TestSilenceDetectionAllocatesNothing: a stream that flows across several
// silence timeouts makes no deadline fire (a read ending on a deadline
// allocates its error), so the receive loop stays allocation-free.
func TestSilenceDetectionAllocatesNothing(t *testing.T) {
	testenv.SkipIfRace(t)
	srv, c, p := scalarSession(t, Options{Silence: 400 * time.Millisecond})
	var u Update
	send(t, srv, 0, p)
	expect(t, c, &u, 0, 0)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	counter := uint32(1)
	for start := time.Now(); time.Since(start) < 4*400*time.Millisecond; counter++ {
		send(t, srv, counter, p)
		if err := c.Next(&u); err != nil {
			t.Fatalf("update %d: %v", counter, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	runtime.ReadMemStats(&m1)
	if n := m1.Mallocs - m0.Mallocs; n > 2 {
		t.Errorf("%d allocations over %d updates and 4 silence timeouts", n, counter)
	}
}

func TestSilenceTimeout(t *testing.T) {
	for _, c := range []struct{ period, want time.Duration }{
		{0, minSilence}, {time.Millisecond, minSilence}, {time.Second, 5 * time.Second},
	} {
		if got := silenceRule(c.period); got != c.want {
			t.Errorf("silenceRule(%v) = %v, want %v", c.period, got, c.want)
		}
	}
}
