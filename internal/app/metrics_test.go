package app

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	vmetrics "github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/internal/testenv"
)

// TestMetricsHaveHelpAndFollowTheNamingRules scrapes an application with
// the three producer classes, two RT threads, HTTP and the scope once
// every family is there: every family has one line of help that names
// its unit, and every name follows Prometheus's rules
// (testenv.CheckExposition); every family of this package's help tables is
// served, so none is left over from a renamed metric.
func TestMetricsHaveHelpAndFollowTheNamingRules(t *testing.T) {
	vmetrics.ExposeMetadata(true)
	t.Cleanup(func() { vmetrics.ExposeMetadata(false) })
	port := func(c *net.UDPConn) string { return strconv.Itoa(c.LocalAddr().(*net.UDPAddr).Port) }
	text := strings.NewReplacer("%ADDR%", "127.0.0.1:0", "%SCOPE%", "127.0.0.1:0", "%PORT%", strconv.Itoa(testenv.FreeUDPPort(t)),
		"%RDPORT%", port(testenv.Loopback(t)), "%FLATPORT%", port(testenv.Loopback(t))).Replace(readTestdata(t, "metrics.toml"))
	h := startHTTP(t, parseConfig(t, "metrics.toml", text))
	if h.ScopeAddr() == "" {
		t.Fatal("no scope")
	}
	// Families that appear only where the kernel reports them.
	optional := func(f string) bool {
		return strings.HasPrefix(f, "process_pressure_") || strings.HasPrefix(f, "process_cgroup_")
	}
	missing := func(body string) []string {
		var m []string
		for f := range metricHelp {
			if !optional(f) && !strings.Contains(body, "\n# TYPE "+f+" ") {
				m = append(m, f)
			}
		}
		return m
	}
	var body string
	var lacking []string
	defer func() {
		if len(lacking) > 0 {
			t.Logf("/metrics lacks %v", lacking)
		}
	}()
	testenv.Eventually(t, "every family in /metrics", time.Minute, func() bool {
		_, body = h.do(t, "GET", "/metrics", "", nil)
		lacking = missing(body)
		return len(lacking) == 0
	})
	types := testenv.CheckExposition(t, body)
	var classes [3]int
	for f := range types {
		for i, c := range []string{"streamerd_udpstreamer_", "streamerd_rd100s_", "streamerd_flatudp_"} {
			if strings.HasPrefix(f, c) {
				classes[i]++
			}
		}
	}
	if classes[0] < 20 || classes[1] < 20 || classes[2] < 10 {
		t.Errorf("families per producer class: %v", classes)
	}
	t.Logf("%d families", len(types))
}

// The runtime families keep their values under their new names, and the
// counters the metrics package types as gauges are typed as counters.
func TestRuntimeNamesFixed(t *testing.T) {
	in := "# HELP go_cgo_calls_count\n# TYPE go_cgo_calls_count counter\ngo_cgo_calls_count 3\n" +
		"# HELP process_io_read_bytes_total\n# TYPE process_io_read_bytes_total gauge\nprocess_io_read_bytes_total 7\n" +
		"# HELP go_info\n# TYPE go_info gauge\ngo_info{version=\"go1\"} 1\ngo_gc_duration_seconds_sum 0.5"
	want := "# HELP go_cgo_calls_total\n# TYPE go_cgo_calls_total counter\ngo_cgo_calls_total 3\n" +
		"# HELP process_io_read_bytes_total\n# TYPE process_io_read_bytes_total counter\nprocess_io_read_bytes_total 7\n" +
		"# HELP go_info\n# TYPE go_info gauge\ngo_info{version=\"go1\"} 1\ngo_gc_duration_seconds_sum 0.5"
	if got := string(fixRuntimeNames(nil, []byte(in))); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for from, to := range runtimeRenames {
		if runtimeHelp[from] != "" || runtimeHelp[to] == "" {
			t.Errorf("%s → %s: the help belongs to the new name", from, to)
		}
	}
}
