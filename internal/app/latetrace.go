package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/trace"
	"strings"
	"time"

	"github.com/streamerd/streamerd/internal/forensics"
)

// The bounds of the late-cycle traces (App.LateTraceDir).
const (
	lateTraceWindow   = 5 * time.Second // the time each trace covers, at least
	lateTraceMaxBytes = 16 << 20        // a trace file's size, at most
	lateTraceMax      = 20              // traces a run
	lateTraceEvery    = 10 * time.Second
	// lateTraceDelay: how long after an event is explained its trace is
	// taken, so it also shows what followed.
	lateTraceDelay = 100 * time.Millisecond
)

// lateTracer keeps a Go execution trace of the last seconds of the
// process in memory (runtime/trace's flight recorder) and writes it out,
// with the event, when a cycle is late or skipped: the proof of where the
// cycle's time went. onEvent runs on the monitor's goroutine and never
// blocks; the files are written on the tracer's own goroutine.
type lateTracer struct {
	dir    string
	log    *slog.Logger
	fr     *trace.FlightRecorder
	events chan forensics.Event // at most one waiting
	stop   chan struct{}
	done   chan struct{}

	// The bounds, lateTrace* but in tests.
	max          int
	every, delay time.Duration
	maxBytes     int64
}

// checkTraceDir reports why dir cannot take the traces: it must be an
// existing directory the process can create files in.
func checkTraceDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".streamerd-check-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

func newLateTracer(dir string, log *slog.Logger) *lateTracer {
	return &lateTracer{dir: dir, log: log, max: lateTraceMax, every: lateTraceEvery, delay: lateTraceDelay, maxBytes: lateTraceMaxBytes}
}

// start starts the flight recorder and the writer. It fails when the
// process already has one recording (runtime/trace allows one).
func (t *lateTracer) start() error {
	fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: lateTraceWindow, MaxBytes: uint64(t.maxBytes)})
	if err := fr.Start(); err != nil {
		return fmt.Errorf("late-cycle traces: %w", err)
	}
	t.fr = fr
	t.events = make(chan forensics.Event, 1)
	t.stop, t.done = make(chan struct{}), make(chan struct{})
	go t.run()
	return nil
}

// onEvent hands ev to the writer if it is idle; it does not keep ev.
func (t *lateTracer) onEvent(ev *forensics.Event) {
	select {
	case t.events <- *ev:
	default:
	}
}

func (t *lateTracer) run() {
	defer close(t.done)
	var last time.Time
	n := 0
	for {
		var ev forensics.Event
		select {
		case <-t.stop:
			return
		case ev = <-t.events:
		}
		if n >= t.max || (n > 0 && time.Since(last) < t.every) {
			continue
		}
		select {
		case <-t.stop:
			return
		case <-time.After(t.delay):
		}
		last = time.Now()
		n++
		path, err := t.write(&ev)
		if err != nil {
			t.log.Warn("late-cycle trace not written", "source", ev.Source, "err", err)
			continue
		}
		t.log.Info("late-cycle trace written", "source", ev.Source, "cause", ev.Cause.String(), "path", path, "left", t.max-n)
	}
}

// stopAndWait stops the writer (a trace being written is finished) and the
// flight recorder, once they started.
func (t *lateTracer) stopAndWait() {
	if t.fr == nil {
		return
	}
	close(t.stop)
	<-t.done
	t.fr.Stop()
	t.fr = nil
}

// lateTraceEvent is the .json file written beside a trace: the event as
// /status shows it, with the deadline on the trace's clock.
type lateTraceEvent struct {
	Source string `json:"source"`
	Skip   bool   `json:"skipped,omitempty"`
	// DeadlineNs is the cycle's deadline (or when it was skipped) on
	// CLOCK_MONOTONIC, the clock of the trace's timestamps.
	DeadlineNs int64 `json:"deadline_monotonic_ns"`
	forensics.EventStatus
}

// write writes ev's trace and its .json file and returns the trace's path.
func (t *lateTracer) write(ev *forensics.Event) (string, error) {
	kind := "late"
	if ev.Skip {
		kind = "skip"
	}
	base := filepath.Join(t.dir, fmt.Sprintf("%s-%s-%s-%s", kind, fileSafe(ev.Source), ev.Time.UTC().Format("20060102T150405.000"), ev.Cause))
	f, err := os.OpenFile(base+".trace", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	_, err = t.fr.WriteTo(&capWriter{w: f, bound: t.maxBytes})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	b, err := json.MarshalIndent(lateTraceEvent{Source: ev.Source, Skip: ev.Skip, DeadlineNs: ev.At, EventStatus: ev.Status()}, "", "  ")
	if err == nil {
		err = os.WriteFile(base+".json", append(b, '\n'), 0o600)
	}
	return f.Name(), err
}

// errTraceTooLarge: the flight recorder had more than a trace file may
// hold.
var errTraceTooLarge = errors.New("trace larger than its bound")

// capWriter writes at most bound bytes to w, then fails.
type capWriter struct {
	w            io.Writer
	bound, wrote int64
}

func (c *capWriter) Write(p []byte) (int, error) {
	if c.wrote+int64(len(p)) > c.bound {
		return 0, fmt.Errorf("%w of %d bytes", errTraceTooLarge, c.bound)
	}
	c.wrote += int64(len(p))
	return c.w.Write(p)
}

// fileSafe keeps letters, digits, '-', '_' and '.' of a name, for a file
// name.
func fileSafe(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, name)
}
