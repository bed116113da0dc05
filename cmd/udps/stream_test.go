package main

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/cli"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/internal/udpstest"
)

// waitFor polls cond until it holds or the test's patience runs out.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testenv.Eventually(t, what, wait, cond)
}

// exitCode waits for udps's exit code on done.
func exitCode(t *testing.T, done <-chan int) int {
	t.Helper()
	return testenv.Receive(t, done, wait, "udps to stop")
}

// TestDisplacedReconnects: another client takes the session; udps reports
// the silence on stderr, sends CONNECT again, and the first row of the new
// session carries the silence, so that a CSV reader tells the gap from a
// quiet signal.
func TestDisplacedReconnects(t *testing.T) {
	srv := udpstest.NewServer(t, testSigs(), 1400)
	var stdout, stderr testenv.Buffer
	done := startAgainst(t, context.Background(), srv, &stdout, &stderr,
		"-local", "127.0.0.1:0", "-format", "csv", "-n", "2", "-silence", "200ms", "-reconnect")
	p, _ := udpstest.Payload(testSigs(), 5, nil)
	srv.SendUpdate(0, p)
	waitFor(t, "the first row", func() bool { return strings.Count(stdout.String(), "\n") == 2 })
	mine := srv.Client()
	srv.Displace(t)
	waitFor(t, "udps's CONNECT after the silence", func() bool { return srv.Client() == mine })
	srv.SendUpdate(0, p)
	if code := exitCode(t, done); code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	rows := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(rows) != 3 || !strings.HasPrefix(rows[1], "0,5,0,0,0,") || !regexp.MustCompile(`^0,5,0,0,0\.[2-9][0-9]*,|^0,5,0,0,[1-9]`).MatchString(rows[2]) {
		t.Errorf("rows:\n%s", stdout.String())
	}
	for _, s := range []string{"(silence); sending CONNECT again", "updates resumed after", "in a new session", "silences 1, CONNECTs after a silence 1"} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
		}
	}
}

// TestStatsSaySilent: the stats line says how long the stream has been
// silent rather than printing zero rates.
func TestStatsSaySilent(t *testing.T) {
	srv := udpstest.NewServer(t, testSigs(), 1400)
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr testenv.Buffer
	done := startAgainst(t, ctx, srv, &stdout, &stderr, "-local", "127.0.0.1:0", "-format", "stats", "-interval", "20ms", "-silence", "100ms")
	p, _ := udpstest.Payload(testSigs(), 1, nil)
	srv.SendUpdate(0, p)
	waitFor(t, "a silent stats line", func() bool { return regexp.MustCompile(`(?m)^silent [0-9]+\.[0-9] s$`).MatchString(stdout.String()) })
	cancel()
	if code := exitCode(t, done); code != cli.ExitOK {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(stderr.String(), "udps: no DATA from") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// TestCounterResyncReported: a stray DATA counter is dropped; a counter
// restart without CONFIG is reported once and followed.
func TestCounterResyncReported(t *testing.T) {
	srv := udpstest.NewServer(t, testSigs(), 1400)
	r := runWith(t, srv, func() {
		for _, c := range []uint32{5000, 5001, 0x7FFFFFF0, 5002, 5003, 0, 1, 2} {
			p, _ := udpstest.Payload(testSigs(), uint64(c), nil)
			srv.SendUpdate(c, p)
		}
	}, "-format", "table", "-n", "6")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, "restarted at 1 without a CONFIG"); n != 1 {
		t.Errorf("%d resync reports:\n%s", n, r.stderr)
	}
	if !strings.Contains(r.stdout, "#5002 hrt=5002 lost=0") || !strings.Contains(r.stdout, "#1 hrt=1 lost=1") || !strings.Contains(r.stdout, "#2 hrt=2 lost=0") ||
		!strings.Contains(r.stderr, "counter resyncs 1 (2 stray updates)") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}

// runWith runs udps with args against srv, calls send once it connects,
// and returns when udps stops.
func runWith(t *testing.T, srv *udpstest.Server, send func(), args ...string) result {
	t.Helper()
	var stdout, stderr testenv.Buffer
	done := startAgainst(t, context.Background(), srv, &stdout, &stderr, append([]string{"-local", "127.0.0.1:0"}, args...)...)
	send()
	code := exitCode(t, done)
	return result{code, stdout.String(), stderr.String()}
}

// TestRefusedConfigSaysWhy: a CONFIG beyond the client's limits ends udps
// after one CONNECT with what was wrong.
func TestRefusedConfigSaysWhy(t *testing.T) {
	sigs := make([]datasource.Signal, 5000)
	for i := range sigs {
		sigs[i] = datasource.Signal{Name: "S" + strconv.Itoa(i), Type: datasource.Uint8}
	}
	srv := udpstest.NewServer(t, sigs, 1400)
	var stdout, stderr testenv.Buffer
	code := run(context.Background(), []string{"-server", srv.Addr().String(), "-local", "127.0.0.1:0", "-timeout", "10s"}, &stdout, &stderr)
	if code != cli.ExitError || !strings.Contains(stderr.String(), "its CONFIG has 5000 signals") || !strings.Contains(stderr.String(), "(4096 signals)") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if n := srv.Connects(); n != 1 {
		t.Errorf("%d CONNECTs, want 1", n)
	}
}

// TestPartialUpdateCountedAtExit: an update whose last fragments never
// came is counted as incomplete in the summary udps prints as it exits.
func TestPartialUpdateCountedAtExit(t *testing.T) {
	srv := udpstest.NewServer(t, testSigs(), 48)
	p0, _ := udpstest.Payload(testSigs(), 1000, testValues(0))
	p1, _ := udpstest.Payload(testSigs(), 2000, testValues(1))
	frags, err := srv.Datagrams(1, p1)
	if err != nil || len(frags) < 2 {
		t.Fatalf("%d fragments, %v", len(frags), err)
	}
	r := runWith(t, srv, func() {
		srv.SendUpdate(0, p0)
		srv.SendDatagram(frags[0]) // update 1 never gets the rest
		srv.SendUpdate(2, p0)
	}, "-n", "2")
	if r.code != 0 || !strings.Contains(r.stderr, "udps: 2 updates") || !strings.Contains(r.stderr, ", incomplete 1,") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
