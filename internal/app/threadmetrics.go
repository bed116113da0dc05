package app

import (
	"fmt"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/internal/cycles"
	"github.com/streamerd/streamerd/rt"
)

// threadMetrics are the metrics of one RT thread, written by the publisher
// goroutine from rt.Stats snapshots and the timing collector's
// cycles.Summary; the RT thread never touches them.
type threadMetrics struct {
	cycles, overruns, missed, failures               *metrics.Counter
	cycleLast, cycleMin, cycleMax                    *metrics.Gauge
	latLast, latMin, latMax, latP50, latP99, busyMax *metrics.Gauge
	steps                                            []stepMetrics
	set                                              *metrics.Set
	name                                             string
}

// threadHelp is the help of the RT thread families, published once a
// second from rt.Stats; stat="last" is the last cycle's value, "min" and
// "max" the extremes since the start.
var threadHelp = map[string]string{
	"streamerd_rt_cycles_total":           "Cycles the RT thread executed.",
	"streamerd_rt_overruns_total":         "Cycles whose work ended after the next cycle's deadline.",
	"streamerd_rt_missed_periods_total":   "Periods skipped, with no cycle executed, because the thread was late.",
	"streamerd_rt_failures_total":         "Step (GAM or broker) executions that returned an error, all steps of the thread.",
	"streamerd_rt_cycle_time_seconds":     "Time from one cycle's start to the next one's, by stat (last, min, max), in seconds.",
	"streamerd_rt_wakeup_latency_seconds": "Delay between a cycle's deadline and the thread's wake-up, by stat (last, min, max, p50, p99 since the start), in seconds.",
	"streamerd_rt_busy_seconds":           "Longest time the steps of one cycle took together (stat=max), in seconds.",
	"streamerd_rt_step_executions_total":  "Executions of one step (GAM or broker).",
	"streamerd_rt_step_failures_total":    "Executions of one step (GAM or broker) that returned an error.",
	"streamerd_rt_step_exec_seconds":      "Time of one execution of a step, by stat (last, max, mean since the start), in seconds.",
}

type stepMetrics struct {
	executions, failures *metrics.Counter
	last, max, mean      *metrics.Gauge
}

func newThreadMetrics(ms *metrics.Set, name string) threadMetrics {
	l := fmt.Sprintf(`thread=%q`, name)
	g := func(metric, extra string) *metrics.Gauge {
		return ms.NewGauge(fmt.Sprintf("streamerd_rt_%s{%s%s}", metric, l, extra), nil)
	}
	return threadMetrics{
		set:      ms,
		name:     name,
		cycles:   ms.NewCounter(fmt.Sprintf("streamerd_rt_cycles_total{%s}", l)),
		overruns: ms.NewCounter(fmt.Sprintf("streamerd_rt_overruns_total{%s}", l)),
		missed:   ms.NewCounter(fmt.Sprintf("streamerd_rt_missed_periods_total{%s}", l)),
		// The thread's failed step executions, all steps: the sum of its
		// streamerd_rt_step_failures_total series, under its own name so a
		// sum over either never counts a failure twice.
		failures:  ms.NewCounter(fmt.Sprintf("streamerd_rt_failures_total{%s}", l)),
		cycleLast: g("cycle_time_seconds", `,stat="last"`),
		cycleMin:  g("cycle_time_seconds", `,stat="min"`),
		cycleMax:  g("cycle_time_seconds", `,stat="max"`),
		latLast:   g("wakeup_latency_seconds", `,stat="last"`),
		latMin:    g("wakeup_latency_seconds", `,stat="min"`),
		latMax:    g("wakeup_latency_seconds", `,stat="max"`),
		latP50:    g("wakeup_latency_seconds", `,stat="p50"`),
		latP99:    g("wakeup_latency_seconds", `,stat="p99"`),
		busyMax:   g("busy_seconds", `,stat="max"`),
	}
}

// update publishes s and sum. It runs on the publisher goroutine.
func (m *threadMetrics) update(s *rt.Stats, sum *cycles.Summary) {
	m.cycles.Set(s.Cycles)
	m.overruns.Set(s.Overruns)
	m.missed.Set(s.MissedPeriods)
	m.failures.Set(s.Failures)
	m.cycleLast.Set(sum.LastCycle.Seconds())
	m.cycleMin.Set(sum.MinCycle.Seconds())
	m.cycleMax.Set(sum.MaxCycle.Seconds())
	m.latLast.Set(sum.LastLatency.Seconds())
	m.latMin.Set(sum.MinLatency.Seconds())
	m.latMax.Set(sum.MaxLatency.Seconds())
	m.latP50.Set(sum.LatencyQuantile(0.50).Seconds())
	m.latP99.Set(sum.LatencyQuantile(0.99).Seconds())
	m.busyMax.Set(sum.MaxBusy.Seconds())
	if m.steps == nil && len(s.Steps) > 0 {
		m.steps = make([]stepMetrics, len(s.Steps))
		for i := range s.Steps {
			l := fmt.Sprintf(`thread=%q,step=%q`, m.name, s.Steps[i].Name)
			m.steps[i] = stepMetrics{
				executions: m.set.NewCounter(fmt.Sprintf("streamerd_rt_step_executions_total{%s}", l)),
				failures:   m.set.NewCounter(fmt.Sprintf("streamerd_rt_step_failures_total{%s}", l)),
				last:       m.set.NewGauge(fmt.Sprintf(`streamerd_rt_step_exec_seconds{%s,stat="last"}`, l), nil),
				max:        m.set.NewGauge(fmt.Sprintf(`streamerd_rt_step_exec_seconds{%s,stat="max"}`, l), nil),
				mean:       m.set.NewGauge(fmt.Sprintf(`streamerd_rt_step_exec_seconds{%s,stat="mean"}`, l), nil),
			}
		}
	}
	for i := range m.steps {
		sm := &m.steps[i]
		sm.executions.Set(s.Cycles) // every step runs once per cycle
		sm.failures.Set(s.Steps[i].Failures)
		if i < len(sum.Steps) {
			st := &sum.Steps[i]
			sm.last.Set(st.Last.Seconds())
			sm.max.Set(st.Max.Seconds())
			if sum.Cycles > 0 {
				sm.mean.Set(st.Total.Seconds() / float64(sum.Cycles))
			}
		}
	}
}
