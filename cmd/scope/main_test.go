package main

import (
	"bytes"
	"context"
	"io"
	"net"
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
	}, "udps", "flat", "rd100s", "listen", "signals", "rate", "endian", "group", "iface", "timeout", "reconnect", "viewers", "memory")
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-udps", "127.0.0.1:1", "-rd100s", "127.0.0.1:2"},
		{"-udps", "127.0.0.1:1", "-signals", "A:uint8"},
		{"-rd100s", "127.0.0.1:1", "-viewers", "0"},
		{"-rd100s", "127.0.0.1:1", "extra"},
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
	free, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := free.LocalAddr().String()
	free.Close()
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
		resp, err := http.Get(url + "status.json")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), `"state":"error"`) && strings.Contains(string(b), "nope") {
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
