package datasource

import (
	"fmt"

	"github.com/VictoriaMetrics/metrics"
)

// Metrics registers the metrics of one datasource in a metrics.Set: each
// is named streamerd_<class>_<metric> and labelled datasource="<name>"
// first, so producers of every class and name share one set. The zero
// value is not usable; make one with NewMetrics. Counters and gauges are
// atomic: the RT thread may update them. Every family has its one-line
// help in metricHelp (metrichelp.go), which WritePrometheus writes.
type Metrics struct {
	set    *metrics.Set
	prefix string // streamerd_<class>_
	label  string // datasource="<name>"
}

// NewMetrics returns the Metrics of datasource name of class
// (udpstreamer, rd100s, flatudp) in set.
func NewMetrics(set *metrics.Set, class, name string) Metrics {
	return Metrics{set: set, prefix: "streamerd_" + class + "_", label: fmt.Sprintf("datasource=%q", name)}
}

// Counter registers a counter; each of labels is one more `key="value"`.
func (n Metrics) Counter(metric string, labels ...string) *metrics.Counter {
	return n.set.NewCounter(n.name(metric, labels))
}

// Gauge registers a gauge that f reads, or that Set sets when f is nil.
func (n Metrics) Gauge(metric string, f func() float64) *metrics.Gauge {
	return n.set.NewGauge(n.name(metric, nil), f)
}

func (n Metrics) name(metric string, labels []string) string {
	s := n.prefix + metric + "{" + n.label
	for _, l := range labels {
		s += "," + l
	}
	return s + "}"
}
