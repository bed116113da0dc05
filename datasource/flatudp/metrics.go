package flatudp

import (
	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource/internal/dsmetrics"
)

// senderMetrics holds the counters of one Sender. Counters are atomic and
// safe from the RT thread; nothing here is a histogram.
type senderMetrics struct {
	// RT thread.
	synchronised, queued, overflows, wakeups *metrics.Counter
	// Sender thread.
	triggers, sent, skipped  *metrics.Counter
	datagrams, bytes, errors *metrics.Counter
	unreachables             *metrics.Counter
	unreachable              *metrics.Gauge

	reg *dsmetrics.Metrics // what was registered, for Close
}

func newSenderMetrics(ms *metrics.Set, name string, depth func() float64) *senderMetrics {
	n := dsmetrics.New(ms, "flatudp", name)
	c := n.Counter
	n.Gauge("ring_depth", depth)
	return &senderMetrics{
		reg:          n,
		synchronised: c("synchronise_total"),
		queued:       c("cycles_queued_total"),
		overflows:    c("overflows_total"),
		wakeups:      c("network_wakeups_total"),
		triggers:     c("triggers_total"),
		sent:         c("cycles_sent_total"),
		skipped:      c("cycles_skipped_total"),
		datagrams:    c("datagrams_sent_total"),
		bytes:        c("sent_bytes_total"),
		errors:       c("send_errors_total"),
		unreachables: c("icmp_port_unreachable_total"),
		unreachable:  n.Gauge("destination_unreachable", nil),
	}
}
