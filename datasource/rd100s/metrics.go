package rd100s

import (
	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource/internal/dsmetrics"
)

// encoderMetrics holds the counters of one Encoder. Counters are atomic and
// safe from the RT thread and the network thread; nothing here is a
// histogram.
type encoderMetrics struct {
	synchronised, lockTimeouts                 *metrics.Counter
	ticks, ticksMissed                         *metrics.Counter
	sent, sendErrors                           *metrics.Counter
	droppedLoss, droppedBurst, silenced        *metrics.Counter
	duplicated, delayed, reordered, reorderOvf *metrics.Counter
	jittered, frozen, seqJumps                 *metrics.Counter
	nonFinite, restarts                        *metrics.Counter
	eventsUnlogged                             *metrics.Counter
	unreachables                               *metrics.Counter
	unreachable                                *metrics.Gauge
	activations, deactivations                 []*metrics.Counter // by kind

	reg *dsmetrics.Metrics // what was registered, for Close
}

func newEncoderMetrics(ms *metrics.Set, name string) *encoderMetrics {
	n := dsmetrics.New(ms, "rd100s", name)
	c := n.Counter
	m := &encoderMetrics{
		reg:            n,
		synchronised:   c("synchronise_total"),
		lockTimeouts:   c("lock_timeouts_total"),
		ticks:          c("ticks_total"),
		ticksMissed:    c("ticks_missed_total"),
		sent:           c("packets_sent_total"),
		sendErrors:     c("send_errors_total"),
		silenced:       c("packets_silenced_total"),
		duplicated:     c("packets_duplicated_total"),
		delayed:        c("packets_delayed_total"),
		reordered:      c("packets_reordered_total"),
		reorderOvf:     c("reorder_overflow_total"),
		jittered:       c("packets_jittered_total"),
		frozen:         c("packets_frozen_total"),
		nonFinite:      c("nonfinite_readings_total"),
		restarts:       c("simulated_restarts_total"),
		seqJumps:       c("seq_jumps_total"),
		eventsUnlogged: c("events_unlogged_total"),
		unreachables:   c("icmp_port_unreachable_total"),
		unreachable:    n.Gauge("destination_unreachable", nil),
	}
	dropped := n.Family("packets_dropped_total", "reason", "loss", "burst")
	m.droppedLoss, m.droppedBurst = dropped[0], dropped[1]
	m.activations = n.Family("degradation_activations_total", "degradation", kindNames[:]...)
	m.deactivations = n.Family("degradation_deactivations_total", "degradation", kindNames[:]...)
	return m
}
