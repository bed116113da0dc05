package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"
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

func TestSawToo(t *testing.T) {
	spikes := []spike{{at: 10e6, us: 600}, {at: 50e6, us: 900}}
	for _, c := range []struct {
		at   int64
		want bool
	}{{9e6, true}, {12e6, true}, {12.5e6, false}, {30e6, false}, {48.5e6, true}, {60e6, false}} {
		if got := sawToo(spikes, c.at); got != c.want {
			t.Errorf("sawToo(%v) = %v", c.at, got)
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
