package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	vmetrics "github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/internal/forensics"
	"github.com/streamerd/streamerd/internal/testenv"
)

// TestLateTraces runs the default application with every cycle late and
// LateTraceDir set: a Go execution trace and the event's .json file are
// written there, readable by their owner only.
func TestLateTraces(t *testing.T) {
	dir := t.TempDir()
	f := exampleFile(t, "app.toml")
	f.Threads[0].LateThreshold = time.Nanosecond
	f.App.LateTraceDir = dir
	var logs testenv.Buffer
	startFileLog(t, f, slog.New(slog.NewTextHandler(&logs, nil)))
	traces := waitTraces(t, dir, 1)
	b, err := os.ReadFile(traces[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("go 1.")) {
		t.Errorf("%s does not start as a Go execution trace: %q", traces[0], b[:min(len(b), 16)])
	}
	if st, err := os.Stat(traces[0]); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("trace mode: %v %v", st.Mode(), err)
	}
	js, err := os.ReadFile(strings.TrimSuffix(traces[0], ".trace") + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var ev lateTraceEvent
	if err := json.Unmarshal(js, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Source != "RT1" || ev.DeadlineNs <= 0 || ev.Cause == "" || ev.Explanation == "" || !strings.Contains(filepath.Base(traces[0]), "late-RT1-") {
		t.Errorf("%s: %s", filepath.Base(traces[0]), js)
	}
	if !strings.Contains(logs.String(), "late-cycle trace written") {
		t.Errorf("no log line; log:\n%s", logs.String())
	}
}

// waitTraces waits for n traces in dir and returns their paths.
func waitTraces(t *testing.T, dir string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		m, _ := filepath.Glob(filepath.Join(dir, "*.trace"))
		j, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		if len(m) >= n && len(j) >= n {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d traces in %s after 30 s, want %d", len(m), dir, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLateTraceBounds: no more traces a run than the bound, none closer
// together than the spacing, none larger than the size bound (the file is
// removed and the reason logged).
func TestLateTraceBounds(t *testing.T) {
	ev := func(i int) *forensics.Event {
		return &forensics.Event{Source: "RT/1", Time: time.Unix(int64(i), 0), At: int64(i), Late: time.Millisecond, Cause: forensics.CPUUnavailable}
	}
	run := func(tr *lateTracer, events int) {
		t.Helper()
		if err := tr.start(); err != nil {
			t.Fatal(err)
		}
		for i := range events {
			tr.onEvent(ev(i))
			deadline := time.Now().Add(10 * time.Second)
			for len(tr.events) > 0 || (i < tr.max && tr.every == 0 && countTraces(tr.dir) < i+1 && time.Now().Before(deadline)) {
				time.Sleep(5 * time.Millisecond)
			}
		}
		tr.stopAndWait()
	}

	tr := newLateTracer(t.TempDir(), slog.New(slog.DiscardHandler))
	tr.max, tr.every, tr.delay = 2, 0, 0
	run(tr, 4)
	if n := countTraces(tr.dir); n != 2 {
		t.Errorf("%d traces with a bound of 2", n)
	}
	if m, _ := filepath.Glob(filepath.Join(tr.dir, "late-RT_1-*")); len(m) != 4 {
		t.Errorf("files %v: the source's name not made safe", m)
	}

	tr = newLateTracer(t.TempDir(), slog.New(slog.DiscardHandler))
	tr.every, tr.delay = time.Hour, 0
	run(tr, 3)
	if n := countTraces(tr.dir); n != 1 {
		t.Errorf("%d traces within the spacing, want 1", n)
	}

	var logs testenv.Buffer
	tr = newLateTracer(t.TempDir(), slog.New(slog.NewTextHandler(&logs, nil)))
	tr.every, tr.delay, tr.maxBytes = 0, 0, 64
	if err := tr.start(); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.write(ev(1)); !errors.Is(err, errTraceTooLarge) {
		t.Errorf("a trace over 64 bytes: %v", err)
	}
	tr.onEvent(ev(2))
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "late-cycle trace not written") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	tr.stopAndWait()
	if !strings.Contains(logs.String(), errTraceTooLarge.Error()) {
		t.Errorf("the reason not logged; log:\n%s", logs.String())
	}
	if m, _ := filepath.Glob(filepath.Join(tr.dir, "*")); len(m) != 0 {
		t.Errorf("left %v", m)
	}
}

func countTraces(dir string) int {
	m, _ := filepath.Glob(filepath.Join(dir, "*.trace"))
	return len(m)
}

// TestLateTraceDirErrors: a LateTraceDir that is missing or not a
// directory is refused when the application is built, naming the file,
// line and key.
func TestLateTraceDirErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		filepath.Join(t.TempDir(), "missing"): "no such file",
		file:                                  "is not a directory",
	}
	if runtime.GOOS == "linux" {
		// A directory no one may create files in, not even root (the
		// tests may run as root, to whom permissions do not apply).
		cases["/proc/self"] = "cannot write in /proc/self"
	}
	for path, want := range cases {
		text := strings.NewReplacer("%ADDR%", "127.0.0.1:0", "%PORT%", "44999",
			"[App]\n", "[App]\nLateTraceDir = "+strconv.Quote(path)+"\n").Replace(readTestdata(t, "http.toml"))
		_, err := Build(parseConfig(t, "http.toml", text), vmetrics.NewSet(), slog.New(slog.DiscardHandler))
		if err == nil || !strings.Contains(err.Error(), want) || !regexp.MustCompile(`^http\.toml:\d+:1: App: LateTraceDir: `).MatchString(err.Error()) {
			t.Errorf("%s: %v, want %q", filepath.Base(path), err, want)
		}
	}
}
