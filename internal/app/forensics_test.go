package app

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/internal/config"
	"github.com/streamerd/streamerd/internal/cycles"
	"github.com/streamerd/streamerd/internal/forensics"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/rt"
)

// TestLateCyclesReported runs the default application with a late
// threshold of 1 ns, so every cycle is late: each is explained, counted
// by cause in /metrics, listed among the worst in /status, and the thread
// gets a log line naming the cause; the UDPStreamer is watched for skips.
func TestLateCyclesReported(t *testing.T) {
	f := exampleFile(t, "app.toml")
	f.Threads[0].LateThreshold = time.Nanosecond
	var logs testenv.Buffer
	ms := metrics.NewSet()
	a, err := Build(f, ms, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := a.Status().LateCycles
		if st != nil && len(st.Threads) == 1 && st.Threads[0].Total > 0 && len(st.Threads[0].Worst) > 0 &&
			strings.Contains(logs.String(), "RT1: ") {
			th := st.Threads[0]
			if th.Name != "RT1" || th.ThresholdUs != 0.001 || len(th.Causes) != int(forensics.NumCauses) {
				t.Errorf("status %+v", th)
			}
			if len(st.DataSources) != 1 || st.DataSources[0].Name != "Streamer" {
				t.Errorf("datasources %+v", st.DataSources)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no late cycle reported: %+v; log:\n%s", st, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	var prom bytes.Buffer
	ms.WritePrometheus(&prom)
	if !strings.Contains(prom.String(), `streamerd_rt_late_cycles_total{thread="RT1",cause="unknown"}`) ||
		!strings.Contains(prom.String(), `streamerd_datasource_skipped_cycles_total{datasource="Streamer",cause="preempted"}`) {
		t.Errorf("metrics:\n%s", grepLines(prom.String(), "late_cycles|skipped_cycles_total"))
	}
	if !strings.Contains(logs.String(), "late cycle") || !strings.Contains(logs.String(), "cause=") {
		t.Errorf("log:\n%s", logs.String())
	}
}

func grepLines(s, any string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for _, w := range strings.Split(any, "|") {
			if strings.Contains(l, w) {
				out = append(out, l)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

// TestStepFailureLogged: a step that fails every cycle is logged at once,
// then at most once per stepFailureLogEvery, each line counting the
// failures since the last.
func TestStepFailureLogged(t *testing.T) {
	var ran atomic.Uint64
	fail := stepFunc(func() error { ran.Add(1); return errors.New("no room") })
	r, err := cycles.New(rt.Config{Name: "RT1", Frequency: 1000}, []rt.Step{{Name: "Gate", Exec: fail}}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	var logs testenv.Buffer
	a := &App{log: slog.New(slog.NewTextHandler(&logs, nil))}
	th := &thread{cfg: &config.Thread{Name: "RT1"}, rt: r}
	for ran.Load() < 5 {
		time.Sleep(time.Millisecond)
	}
	now := time.Now()
	r.ReadStats(&th.stats)
	a.logStepFailures(th, now)
	first := logs.String()
	if !strings.Contains(first, `msg="GAM step failing" thread=RT1 step=Gate`) || !strings.Contains(first, `last_error="no room"`) {
		t.Fatalf("log: %s", first)
	}
	for ran.Load() < 10 {
		time.Sleep(time.Millisecond)
	}
	r.ReadStats(&th.stats)
	a.logStepFailures(th, now.Add(time.Second))
	if logs.String() != first {
		t.Errorf("logged again within %v: %s", stepFailureLogEvery, logs.String())
	}
	a.logStepFailures(th, now.Add(stepFailureLogEvery))
	if n := strings.Count(logs.String(), "GAM step failing"); n != 2 {
		t.Errorf("%d lines after %v: %s", n, stepFailureLogEvery, logs.String())
	}
}

type stepFunc func() error

func (f stepFunc) Execute() error { return f() }
