// Package dsmetrics names and registers a producer's metrics in a metrics.Set: streamerd_<class>_<metric>{datasource="<name>",...}, owned until Unregister.
package dsmetrics

import (
	"fmt"

	"github.com/VictoriaMetrics/metrics"
)

// Metrics registers the metrics of one datasource in a metrics.Set: each
// is named streamerd_<class>_<metric> and labelled datasource="<name>"
// first, so producers of every class and name share one set. It keeps the
// names it registered, so Unregister removes exactly those and a producer
// of the same name can register them again. Make one with New. Counters
// and gauges are atomic: the RT thread may update them. Every family has
// its one-line help in datasource's metric help table (metrichelp.go),
// which datasource.WritePrometheus writes.
type Metrics struct {
	set    *metrics.Set
	prefix string // streamerd_<class>_
	label  string // datasource="<name>"
	names  []string
	err    error // the first metric that could not be registered
}

// New returns the Metrics of datasource name of class (udpstreamer,
// rd100s, flatudp) in set; a nil set is replaced by a new private one.
func New(set *metrics.Set, class, name string) *Metrics {
	if set == nil {
		set = metrics.NewSet()
	}
	return &Metrics{set: set, prefix: "streamerd_" + class + "_", label: fmt.Sprintf("datasource=%q", name)}
}

// Set returns the set the metrics are registered in.
func (n *Metrics) Set() *metrics.Set { return n.set }

// Counter registers a counter. A name the set already holds (another open
// producer of the same class and name) is not registered: the counter
// returned counts for nobody and Err says why.
func (n *Metrics) Counter(metric string) *metrics.Counter { return n.counter(metric, "") }

// Family registers one counter of metric per value of the label key, in
// the order of values, each labelled key="value" after the datasource, as
// Counter does.
func (n *Metrics) Family(metric, key string, values ...string) []*metrics.Counter {
	cs := make([]*metrics.Counter, len(values))
	for i, v := range values {
		cs[i] = n.counter(metric, fmt.Sprintf("%s=%q", key, v))
	}
	return cs
}

// counter registers metric with one more label, when not empty.
func (n *Metrics) counter(metric, label string) *metrics.Counter {
	name := n.name(metric, label)
	var c *metrics.Counter
	if !n.register(name, func() { c = n.set.NewCounter(name) }) {
		return new(metrics.Counter)
	}
	return c
}

// Gauge registers a gauge that f reads, or that Set sets when f is nil,
// as Counter does.
func (n *Metrics) Gauge(metric string, f func() float64) *metrics.Gauge {
	name := n.name(metric, "")
	var g *metrics.Gauge
	if !n.register(name, func() { g = n.set.NewGauge(name, f) }) {
		return new(metrics.Gauge)
	}
	return g
}

// register runs reg, which registers name, and records it; VictoriaMetrics
// panics on a name registered twice, which becomes Err.
func (n *Metrics) register(name string, reg func()) (ok bool) {
	if n.err != nil {
		return false
	}
	if err := metrics.ValidateMetric(name); err != nil {
		n.err = fmt.Errorf("metric %s: %w", name, err)
		return false
	}
	defer func() {
		if r := recover(); r != nil {
			n.err = fmt.Errorf("metric %s is already registered in this metrics set: a producer of this class and name is open (Close it first, or give this one another name), or the program created it itself (a GetOrCreate call with this name keeps it registered after the producer closed)", name)
			ok = false
		}
	}()
	reg()
	n.names = append(n.names, name)
	return true
}

// Err returns why a metric could not be registered, or nil. A producer's
// New checks it after registering everything, and unregisters what it
// did register before it returns the error.
func (n *Metrics) Err() error { return n.err }

// Unregister removes every metric New's owner registered from the set.
// Later calls do nothing.
func (n *Metrics) Unregister() {
	for _, name := range n.names {
		n.set.UnregisterMetric(name)
	}
	n.names = nil
}

// Names returns the names registered and not yet unregistered.
func (n *Metrics) Names() []string { return n.names }

func (n *Metrics) name(metric, label string) string {
	if label != "" {
		label = "," + label
	}
	return n.prefix + metric + "{" + n.label + label + "}"
}
