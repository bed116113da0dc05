package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/forensics"
)

func TestDistPercentile(t *testing.T) {
	h := newDist()
	for us := int64(1); us <= 100; us++ {
		h.add(us, time.Duration(us)*time.Millisecond)
	}
	h.add(250_000, 3*time.Second) // past the histogram: counts at the maximum
	if p := h.percentile(50); p != 51 {
		t.Errorf("p50 %d", p)
	}
	if p := h.percentile(100); p != 250_000 || h.max != 250_000 {
		t.Errorf("p100 %d, max %d", p, h.max)
	}
	if len(h.lateSec) != 1 || !h.lateSec[3] {
		t.Errorf("seconds past 1 ms: %v", h.lateSec)
	}
}

// TestWorstSpike: a spike of cyclictest's counts from 2 ms before streamerd's
// deadline to 2 ms after its late wake-up, so a long stall that stamps
// cyclictest's spike at its end is one stall with streamerd's.
func TestWorstSpike(t *testing.T) {
	spikes := []spike{{at: 10e6, us: 600}, {at: 50e6, us: 900}, {at: 80e6, us: 7000}}
	for _, c := range []struct {
		at   int64
		late time.Duration
		want int64
	}{
		{9e6, 0, 600}, {12e6, 0, 600}, {12.5e6, 0, 0}, {30e6, 0, 0}, {48.5e6, 0, 900}, {60e6, 0, 0},
		{73e6, 7 * time.Millisecond, 7000}, // woke at 80 ms, with cyclictest
		{60e6, 7 * time.Millisecond, 0},    // woke at 67 ms, 13 ms before it
		{45e6, 10 * time.Millisecond, 900}, // held through cyclictest's spike
	} {
		ev := forensics.Event{At: 1e9 + c.at, Late: c.late}
		if got := worstSpike(spikes, ev, 1e9).us; got != c.want {
			t.Errorf("worstSpike at %v late %v = %d, want %d", c.at, c.late, got, c.want)
		}
	}
}

// TestCannotRunWithoutCyclictest: without cyclictest on the PATH it says
// so, and how to get it.
func TestCannotRunWithoutCyclictest(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := run(&bytes.Buffer{}, options{d: time.Second, cpu: -1, hz: 1000})
	if err == nil || !strings.Contains(err.Error(), "cyclictest not found") || !strings.Contains(err.Error(), "rt-tests") {
		t.Fatalf("%v", err)
	}
}

// TestRun runs both for two seconds under normal scheduling, memory not
// locked (no privileges needed; mlockall of a race-detector binary takes
// seconds), and checks the report's parts, not its figures.
func TestRun(t *testing.T) {
	if _, err := exec.LookPath("cyclictest"); err != nil {
		t.Skip("cyclictest not installed (apt-get install rt-tests)")
	}
	var out bytes.Buffer
	if err := run(&out, options{d: 2 * time.Second, cpu: -1, hz: 1000}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"normal scheduling", "streamerd (rt.Thread)", "cyclictest ", "streamerd/cyclictest", "steal on CPU", "streamerd's late cycles", "budget: max"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}
