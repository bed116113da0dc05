package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/cli"
	"github.com/streamerd/streamerd/internal/testenv"
)

// TestHelp: -h exits 0 with a usage that lists every flag and examples.
func TestHelp(t *testing.T) {
	testenv.Help(t, "scope", func(args []string, stdout, stderr io.Writer) int {
		return run(context.Background(), args, stdout, stderr, nil)
	}, "udps", "flat", "rd100s", "listen", "signals", "rate", "endian", "group", "iface", "timeout", "reconnect", "viewers", "memory", "token-file", "allowed-hosts")
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-udps", "127.0.0.1:1", "-rd100s", "127.0.0.1:2"},
		{"-udps", "127.0.0.1:1", "-signals", "A:uint8"},
		{"-rd100s", "127.0.0.1:1", "-viewers", "0"},
		{"-rd100s", "127.0.0.1:1", "extra"},
		{"-rd100s", "127.0.0.1:1", "-allowed-hosts", "ok.example,bad.example:80"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), append(args, "-listen", "127.0.0.1:0"), io.Discard, &stderr, nil); code != cli.ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, cli.ExitUsage)
		}
		if lines := strings.Count(stderr.String(), "\n"); lines != 1 {
			t.Errorf("%v: %d lines on stderr:\n%s", args, lines, &stderr)
		}
	}
}

// TestServesUntilInterrupted: the URL is printed, the page served, a bad
// signals string is one line on stderr and the page's banner, and the
// command ends on its context with exit 1 (the source could not run).
func TestServesUntilInterrupted(t *testing.T) {
	addr := testenv.FreeUDPAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr testenv.Buffer
	urls := make(chan string, 1)
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-flat", addr, "-signals", "A:uint8,B:nope", "-rate", "100", "-listen", "127.0.0.1:0"}, &stdout, &stderr, func(u string) { urls <- u })
	}()
	url := <-urls
	if !strings.Contains(stdout.String(), "FlatUDP "+addr+" on "+url) {
		t.Errorf("stdout %q", stdout.String())
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, b := testenv.HTTPGet(t, url+"status.json")
		if strings.Contains(b, `"state":"error"`) && strings.Contains(b, "nope") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status %s", b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := strings.Count(stderr.String(), "\n"); n != 1 || !strings.Contains(stderr.String(), `unknown type "nope"`) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	cancel()
	if code := <-done; code != cli.ExitError {
		t.Fatalf("exit %d", code)
	}
}

// startScope runs scope with args on a free loopback port (unless args
// give -listen) and returns its URL and stderr; it stops when t ends.
func startScope(t *testing.T, args ...string) (string, *testenv.Buffer) {
	t.Helper()
	addr := testenv.FreeUDPAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	var stderr testenv.Buffer
	urls := make(chan string, 1)
	done := make(chan int, 1)
	args = append([]string{"-rd100s", addr, "-listen", "127.0.0.1:0"}, args...)
	go func() { done <- run(ctx, args, io.Discard, &stderr, func(u string) { urls <- u }) }()
	var url string
	select {
	case url = <-urls:
	case code := <-done:
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return url, &stderr
}

// With -token-file every request needs the token: the page is a form that
// asks for it; a script sends it as a bearer header. A token file every
// user can read is warned about.
func TestTokenFile(t *testing.T) {
	const tok = "s3cret-token-0123456789"
	url, stderr := startScope(t, "-token-file", testenv.WriteFile(t, "token", tok+"\n", 0o644))
	if code, body := testenv.HTTPGet(t, url); code != http.StatusUnauthorized || !strings.Contains(body, `<form method="post" action="login">`) {
		t.Errorf("page without the token: %d %.200s", code, body)
	}
	for _, p := range []string{"status.json", "static/scope.js", "ws"} {
		if code, _ := testenv.HTTPGet(t, url+p); code != http.StatusUnauthorized {
			t.Errorf("%s without the token: %d", p, code)
		}
	}
	if code, body := testenv.HTTPDo(t, nil, "GET", url+"status.json", nil, "Authorization", "Bearer "+tok); code != 200 || !strings.Contains(body, `"type":"stats"`) {
		t.Errorf("status.json with the token: %d %.200s", code, body)
	}
	if !strings.Contains(stderr.String(), "is readable by every user (mode 0644)") {
		t.Errorf("stderr %q", stderr.String())
	}
}

// A page of another site whose name resolves to the scope (DNS rebinding)
// gets 421; the names of -allowed-hosts are answered.
func TestAllowedHosts(t *testing.T) {
	url, _ := startScope(t, "-allowed-hosts", "scope.example.org")
	for host, want := range map[string]int{"evil.example": 421, "scope.example.org": 200, "localhost": 200} {
		req, _ := http.NewRequest("GET", url+"status.json", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
}

// A -listen off the loopback without -token-file is warned about.
func TestExposureWarning(t *testing.T) {
	_, stderr := startScope(t, "-listen", "0.0.0.0:0")
	if !strings.Contains(stderr.String(), "warning: -listen is not a loopback address and there is no -token-file") {
		t.Errorf("stderr %q", stderr.String())
	}
}
