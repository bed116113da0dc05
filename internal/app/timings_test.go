package app

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
)

func TestReservoirPercentiles(t *testing.T) {
	r := reservoir{buf: make([]int64, 0, 1000), rng: 1}
	for v := int64(1000); v >= 1; v-- {
		r.add(v * 1000) // 1..1000 µs
	}
	p := r.roll()
	if p.N != 1000 || p.P50 != 500 || p.P99 != 990 || p.Max != 1000 {
		t.Errorf("exact: %+v", p)
	}
	if p := r.roll(); p != (Percentiles{}) {
		t.Errorf("empty interval: %+v", p)
	}
	// Ten times the capacity: percentiles of a uniform sample, the
	// maximum exact.
	for v := int64(1); v <= 10000; v++ {
		r.add(v * 1000)
	}
	p = r.roll()
	if p.N != 10000 || p.Max != 10000 || p.P50 < 4500 || p.P50 > 5500 || p.P99 < 9700 {
		t.Errorf("sampled: %+v", p)
	}
}

func TestBuckets(t *testing.T) {
	for _, b := range [][]float64{latenessBounds, spanBounds, cycleBounds(time.Millisecond), cycleBounds(10 * time.Microsecond), cycleBounds(time.Second)} {
		if !slices.IsSorted(b) || slices.Compact(slices.Clone(b))[0] <= 0 || metrics.ValidateBuckets(b) != nil {
			t.Errorf("buckets %v", b)
		}
	}
	b := cycleBounds(time.Millisecond)
	for _, want := range []float64{0.001, 0.001 - 1e-6, 0.001 + 1e-6, 0.002, 0.01} {
		if !slices.ContainsFunc(b, func(v float64) bool { return v > want*0.9999999 && v < want*1.0000001 }) {
			t.Errorf("cycle buckets at 1 ms lack %g: %v", want, b)
		}
	}
}

// TestTimingsInMetricsAndStatus runs the default application with a client
// for a little over one interval: /metrics has the histograms of the RT
// thread, its steps and the UDPStreamer, and /status the percentiles of
// the last interval.
func TestTimingsInMetricsAndStatus(t *testing.T) {
	a, ms := startFile(t, exampleFile(t, "app.toml"))
	c, _ := connectClient(t, a)
	go func() {
		var u client.Update
		for c.Next(&u) == nil {
		}
	}()
	var st *TimingsStatus
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		st = a.Status().Timings
		if st != nil && len(st.Threads) == 1 && st.Threads[0].CycleTime.N > 0 && len(st.DataSources) == 1 && st.DataSources[0].SynchroniseToSent.N > 0 {
			break
		}
	}
	if st == nil || len(st.Threads) != 1 || len(st.DataSources) != 1 {
		t.Fatalf("timings: %+v", st)
	}
	if js, err := json.MarshalIndent(st, "", " "); err == nil {
		t.Logf("%s", js)
	}
	th, ds := st.Threads[0], st.DataSources[0]
	for name, p := range map[string]Percentiles{"cycle": th.CycleTime, "lateness": th.WakeupLateness, "sent": ds.SynchroniseToSent} {
		if p.N == 0 || p.P50 > p.P99 || p.P99 > p.Max || p.Max <= 0 {
			t.Errorf("%s: %+v", name, p)
		}
	}
	if len(th.Steps) != len(a.threads[0].rt.Stats().Steps) || th.Steps[0].Exec.N == 0 {
		t.Errorf("steps: %+v", th.Steps)
	}
	var b strings.Builder
	ms.WritePrometheus(&b)
	for _, want := range []string{
		`streamerd_rt_cycle_seconds_bucket{thread="RT1",le="0.001"}`,
		`streamerd_rt_wakeup_lateness_seconds_count{thread="RT1"}`,
		`streamerd_rt_step_seconds_bucket{thread="RT1",step="` + th.Steps[0].Step + `",le="1e-06"}`,
		`streamerd_udpstreamer_synchronise_to_sent_seconds_sum{datasource="` + ds.DataSource + `"}`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	checkLabelSets(t, ms)
}
