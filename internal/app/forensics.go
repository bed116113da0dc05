package app

import (
	"cmp"
	"time"

	"github.com/streamerd/streamerd/internal/forensics"
	"github.com/streamerd/streamerd/rt/cpu"
)

// newMonitor builds the late-cycle monitor of a: every RT thread, and
// every producer that stamps the cycles it skips at the hand-off
// (forensics.Producer), with the time its network thread must have been
// behind when it skips one: its ring's depth in periods of the thread
// that synchronises it.
func (a *App) newMonitor() *forensics.Monitor {
	cfg := forensics.Config{Metrics: a.ms, Log: a.log}
	if a.tracer != nil {
		cfg.OnEvent = a.tracer.onEvent
	}
	m := forensics.New(cfg)
	for _, th := range a.threads {
		var steps []string
		for _, st := range th.rt.Stats().Steps {
			steps = append(steps, st.Name)
		}
		m.WatchThread(th.rt, steps, th.cfg.Priority > 0)
	}
	for _, s := range a.sources {
		p, ok := internalsOf(s.ds).(forensics.Producer)
		if !ok || s.thread < 0 {
			continue
		}
		covers, mask, prio := producerQueue(s, a.threads[s.thread].rt.Period())
		m.WatchProducer(s.cfg.Name, p, covers, mask, prio > 0)
	}
	return m
}

// producerQueue returns the time of cycles the producer's ring holds
// before it skips one, and its network thread's CPUMask and priority.
func producerQueue(s *source, period time.Duration) (covers time.Duration, mask cpu.Mask, prio int) {
	if h, ok := internalsOf(s.ds).(handOffCovers); ok {
		covers = h.HandOffCovers()
	}
	switch d := s.cfg; {
	case d.UDPStreamer != nil:
		return cmp.Or(covers, period), d.UDPStreamer.CPUMask, d.UDPStreamer.Priority
	case d.FlatUDP != nil:
		return cmp.Or(covers, period), d.FlatUDP.CPUMask, d.FlatUDP.Priority
	}
	return period, 0, 0
}
