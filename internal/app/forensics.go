package app

import (
	"time"

	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/forensics"
	"github.com/streamerd/streamerd/rt/cpu"
)

// newMonitor builds the late-cycle monitor of a: every RT thread, and
// every producer that stamps the cycles it skips at the hand-off
// (forensics.Producer), with the time its network thread must have been
// behind when it skips one: its ring's depth in periods of the thread
// that synchronises it.
func (a *App) newMonitor() *forensics.Monitor {
	m := forensics.New(forensics.Config{Metrics: a.ms, Log: a.log})
	for _, th := range a.threads {
		var steps []string
		for _, st := range th.rt.Stats().Steps {
			steps = append(steps, st.Name)
		}
		m.WatchThread(th.rt, steps, th.cfg.Priority > 0)
	}
	for _, s := range a.sources {
		p, ok := s.ds.(forensics.Producer)
		if !ok || s.thread < 0 {
			continue
		}
		depth, mask, prio := producerQueue(s)
		m.WatchProducer(s.cfg.Name, p, time.Duration(depth)*a.threads[s.thread].rt.Period(), mask, prio > 0)
	}
	return m
}

// producerQueue returns how many cycles the producer's ring holds before
// it skips one, and its network thread's CPUMask and priority.
func producerQueue(s *source) (depth int, mask cpu.Mask, prio int) {
	switch d := s.cfg; {
	case d.UDPStreamer != nil:
		depth = d.UDPStreamer.HandOffDepth
		if depth <= 0 {
			depth = udpstreamer.DefaultHandOffDepth
		}
		return depth, d.UDPStreamer.CPUMask, d.UDPStreamer.Priority
	case d.FlatUDP != nil:
		return max(d.FlatUDP.NumberOfBuffers, 1), d.FlatUDP.CPUMask, d.FlatUDP.Priority
	}
	return 1, 0, 0
}
