// Package dsmetrics names the metrics of one datasource in a metrics.Set.
package dsmetrics

import (
	"fmt"

	"github.com/VictoriaMetrics/metrics"
)

// Names registers the metrics of one datasource: each is named
// streamerd_<class>_<metric> and labelled datasource="<name>" first. The
// zero value is not usable; make one with New.
type Names struct {
	set    *metrics.Set
	prefix string // streamerd_<class>_
	label  string // datasource="<name>"
}

// New returns the Names of datasource name of class (udpstreamer, rd100s,
// flatudp) in set.
func New(set *metrics.Set, class, name string) Names {
	return Names{set: set, prefix: "streamerd_" + class + "_", label: fmt.Sprintf("datasource=%q", name)}
}

// Counter registers a counter; each of labels is one more `key="value"`.
func (n Names) Counter(metric string, labels ...string) *metrics.Counter {
	return n.set.NewCounter(n.name(metric, labels))
}

// Gauge registers a gauge that f reads, or that Set sets when f is nil.
func (n Names) Gauge(metric string, f func() float64) *metrics.Gauge {
	return n.set.NewGauge(n.name(metric, nil), f)
}

func (n Names) name(metric string, labels []string) string {
	s := n.prefix + metric + "{" + n.label
	for _, l := range labels {
		s += "," + l
	}
	return s + "}"
}
