package app

import "time"

// stepFailureLogEvery spaces the warnings about one failing step: the
// first failure is logged within a publishing interval, the next ones at
// most this often, each line saying how many failed since the last.
const stepFailureLogEvery = 10 * time.Second

// stepFailures is what has been logged of a thread's step failures; the
// publisher goroutine's only.
type stepFailures struct {
	logged []uint64    // failures counted by the last line, per step
	at     []time.Time // when that line was written
}

// logStepFailures warns about the steps of th whose failures grew since
// their last line, if that line is stepFailureLogEvery old; th.stats is
// the snapshot just published. Failures are counted regardless
// (streamerd_rt_step_failures_total); this tells the operator.
func (a *App) logStepFailures(th *thread, now time.Time) {
	f := &th.failures
	if len(f.logged) != len(th.stats.Steps) {
		f.logged, f.at = make([]uint64, len(th.stats.Steps)), make([]time.Time, len(th.stats.Steps))
	}
	for i := range th.stats.Steps {
		st := &th.stats.Steps[i]
		if st.Failures == f.logged[i] || now.Sub(f.at[i]) < stepFailureLogEvery {
			continue
		}
		a.log.Warn("GAM step failing", "thread", th.cfg.Name, "step", st.Name,
			"failures", st.Failures-f.logged[i], "total_failures", st.Failures, "executions", th.stats.Cycles, "last_error", st.LastErr)
		f.logged[i], f.at[i] = st.Failures, now
	}
}
