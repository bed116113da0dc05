package httpguard

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
)

// serve runs an http.Server answering "ok" on a Listener with o on a free
// loopback port; it stops when t ends.
func serve(t *testing.T, o ListenerOptions) (*Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := Listen(ln, o)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "ok")
	}), ReadHeaderTimeout: time.Minute}
	done := make(chan error, 1)
	go func() { done <- l.Serve(srv) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return l, ln.Addr().String()
}

// dial opens n connections from the local address from that send start
// and nothing more; they are closed when t ends.
func dial(t *testing.T, addr, from string, n int, start string) []net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	var cs []net.Conn
	for range n {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if start != "" {
			io.WriteString(c, start)
		}
		cs = append(cs, c)
	}
	return cs
}

// closedByServer reports whether the server closed c (it reads EOF or a
// reset, rather than waiting).
func closedByServer(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(time.Minute))
	_, err := io.Copy(io.Discard, c)
	return !errors.Is(err, os.ErrDeadlineExceeded)
}

// One client address holds at most MaxPerClient connections; another
// address is served at once, and the first one's newcomers wait.
func TestPerClientBound(t *testing.T) {
	l, addr := serve(t, ListenerOptions{MaxConns: 10, MaxPerClient: 3, EvictAfter: time.Hour})
	dial(t, addr, "127.0.0.2", 5, "GET / HTTP/1.1\r\n")
	testenv.Eventually(t, "3 served, 2 queued", time.Minute, func() bool { s := l.Stats(); return s.Open == 3 && s.Queued == 2 })
	if err := testenv.Probe(testenv.ProbeClient("127.0.0.1"), "http://"+addr+"/"); err != nil {
		t.Fatal(err)
	}
	if s := l.Stats(); s.MaxOpenPerClient != 3 || s.Evicted != 0 || s.Refused != 0 {
		t.Errorf("stats %+v", s)
	}
}

// Beyond the queue a connection is closed at once, counted and logged
// once.
func TestQueueBound(t *testing.T) {
	var logs testenv.Buffer
	l, addr := serve(t, ListenerOptions{MaxConns: 2, MaxPerClient: 2, EvictAfter: time.Hour, MaxQueued: 3, MaxQueuedPerClient: 2,
		Log: slog.New(slog.NewTextHandler(&logs, nil)), Name: "test"})
	dial(t, addr, "127.0.0.2", 4, "")
	testenv.Eventually(t, "2 served, 2 queued", time.Minute, func() bool { s := l.Stats(); return s.Open == 2 && s.Queued == 2 })
	over := dial(t, addr, "127.0.0.2", 2, "")
	for _, c := range over {
		if !closedByServer(c) {
			t.Error("a connection beyond the per-client queue was kept")
		}
	}
	dial(t, addr, "127.0.0.3", 1, "")
	testenv.Eventually(t, "the third client queued", time.Minute, func() bool { return l.Stats().Queued == 3 })
	if c := dial(t, addr, "127.0.0.4", 1, "")[0]; !closedByServer(c) {
		t.Error("a connection beyond the queue was kept")
	}
	if s := l.Stats(); s.Refused != 3 {
		t.Errorf("refused %d, want 3", s.Refused)
	}
	if n := strings.Count(logs.String(), "test connection bounds reached"); n != 1 || !strings.Contains(logs.String(), "client=127.0.0.2") {
		t.Errorf("%d log lines:\n%s", n, logs.String())
	}
}

// A connection that waits in the queue longer than QueueWait is closed.
func TestQueueWait(t *testing.T) {
	l, addr := serve(t, ListenerOptions{MaxConns: 1, EvictAfter: time.Hour, QueueWait: 50 * time.Millisecond})
	dial(t, addr, "127.0.0.2", 1, "")
	testenv.Eventually(t, "one served", time.Minute, func() bool { return l.Stats().Open == 1 })
	if c := dial(t, addr, "127.0.0.3", 1, "")[0]; !closedByServer(c) {
		t.Error("a connection kept in the queue beyond QueueWait")
	}
	if s := l.Stats(); s.TimedOut != 1 || s.Queued != 0 {
		t.Errorf("stats %+v", s)
	}
}

// A connection whose request is being handled is never closed for a
// newcomer, and one reading its body only after its body came.
func TestBusyConnectionsAreKept(t *testing.T) {
	release := make(chan struct{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := Listen(ln, ListenerOptions{MaxConns: 2, EvictAfter: time.Millisecond})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/hold" {
			<-release
		}
		io.WriteString(w, "ok")
	})}
	go l.Serve(srv)
	defer srv.Close()
	defer close(release)
	addr := ln.Addr().String()
	dial(t, addr, "127.0.0.2", 2, "GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
	testenv.Eventually(t, "both in a request", time.Minute, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.open) == 2 && l.open[0].busy && l.open[1].busy
	})
	probe := make(chan error, 1)
	go func() { probe <- testenv.Probe(testenv.ProbeClient("127.0.0.1"), "http://"+addr+"/") }()
	testenv.Eventually(t, "the newcomer queued", time.Minute, func() bool { return l.Stats().Queued == 1 })
	release <- struct{}{} // one request ends; its connection waits for the next, then makes room
	if err := testenv.Receive(t, probe, time.Minute, "the newcomer served"); err != nil {
		t.Fatal(err)
	}
	if s := l.Stats(); s.Evicted != 1 {
		t.Errorf("evicted %d, want 1", s.Evicted)
	}
}

func TestClientKey(t *testing.T) {
	for addr, want := range map[string]string{
		"192.0.2.7:80":              "192.0.2.7/32",
		"[::ffff:192.0.2.7]:80":     "192.0.2.7/32",
		"[2001:db8:1:2:3:4:5:6]:80": "2001:db8:1:2::/64",
	} {
		a, _ := net.ResolveTCPAddr("tcp", addr)
		if got := clientKey(a).String(); got != want {
			t.Errorf("%s: %s, want %s", addr, got, want)
		}
	}
}
