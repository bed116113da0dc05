package testenv

import "testing"

func TestMetricNameRule(t *testing.T) {
	for _, c := range []struct {
		name, typ string
		ok        bool
	}{
		{"streamerd_udpstreamer_sent_bytes_total", "counter", true},
		{"streamerd_rt_cycle_seconds", "histogram", true},
		{"process_cpu_seconds_total", "counter", true},
		{"go_goroutines", "gauge", true},
		{"streamerd_udpstreamer_bytes_sent_total", "counter", false}, // unit not last
		{"process_cpu_seconds_user_total", "counter", false},
		{"go_cgo_calls_count", "counter", false}, // counter without _total
		{"process_io_read_bytes_total", "gauge", false},
		{"go_cpu_count", "gauge", false},
		{"streamerd_rt_latency_ms", "gauge", false},
		{"streamerd_Bad", "gauge", false},
		{"other_metric", "gauge", false},
		{"streamerd__x", "gauge", false},
	} {
		if msg := MetricNameRule(c.name, c.typ); (msg == "") != c.ok {
			t.Errorf("%s %s: %q", c.name, c.typ, msg)
		}
	}
}
