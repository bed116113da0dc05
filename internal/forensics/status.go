package forensics

import (
	"cmp"
	"slices"
	"time"
)

// What Status shows of each source's recent events.
const (
	worstShown = 5
	recentAge  = time.Minute
)

// Status is the late_cycles section of /status (docs/status.md).
type Status struct {
	SampleIntervalMs float64        `json:"sample_interval_ms"`
	Threads          []SourceStatus `json:"threads"`
	DataSources      []SourceStatus `json:"datasources"`
}

// SourceStatus is one RT thread's late cycles, or one producer's skipped
// cycles, by cause, and the worst of the last minute.
type SourceStatus struct {
	Name        string            `json:"name"`
	ThresholdUs float64           `json:"threshold_us,omitempty"`
	Total       uint64            `json:"total"`
	Causes      map[string]uint64 `json:"causes"`
	// MissedPeriods (threads only) is, for each cause, the periods skipped
	// after the late cycles put down to it.
	MissedPeriods map[string]uint64 `json:"missed_periods,omitempty"`
	StampsLost    uint64            `json:"stamps_lost,omitempty"`
	Worst         []EventStatus     `json:"worst"`
}

// EventStatus is one event with its cause and evidence.
type EventStatus struct {
	Time          string         `json:"time"`
	Counter       uint32         `json:"counter,omitempty"`
	LateUs        float64        `json:"late_us"`
	MissedPeriods uint64         `json:"missed_periods,omitempty"`
	Cause         string         `json:"cause"`
	Explanation   string         `json:"explanation"`
	Evidence      EvidenceStatus `json:"evidence"`
}

// EvidenceStatus is Evidence in microseconds.
type EvidenceStatus struct {
	WindowUs            float64 `json:"window_us"`
	CPU                 int     `json:"cpu"`
	StealUs             float64 `json:"steal_us"`
	WaitUs              float64 `json:"wait_us"`
	RunUs               float64 `json:"run_us"`
	InvoluntarySwitches uint64  `json:"involuntary_switches"`
	Blocked             uint64  `json:"blocked"`
	ExtraRunUs          float64 `json:"extra_run_us"`
	StealLastSecondUs   float64 `json:"steal_last_second_us"`
	RuntimeStallUs      float64 `json:"runtime_stall_us"`
	MinorFaults         uint64  `json:"minor_faults"`
	MajorFaults         uint64  `json:"major_faults"`
	GoPauses            uint64  `json:"go_pauses"`
	GCPauses            uint64  `json:"gc_pauses"`
	GoPauseUs           float64 `json:"go_pause_us"`
	ThreadKnown         bool    `json:"thread_known"`
	FIFO                bool    `json:"fifo,omitempty"`
	Step                string  `json:"step,omitempty"`
	StepUs              float64 `json:"step_us,omitempty"`
	YieldLateUs         float64 `json:"yield_late_us,omitempty"`
}

func us(d time.Duration) float64 { return float64(d) / 1e3 }

// Status returns every source's counts by cause and its worst events of
// the last minute. Any goroutine; it allocates.
func (m *Monitor) Status() *Status {
	st := &Status{SampleIntervalMs: float64(m.cfg.Interval) / 1e6, Threads: []SourceStatus{}, DataSources: []SourceStatus{}}
	now := time.Now()
	for _, w := range m.watches {
		ss := SourceStatus{Name: w.name, Causes: map[string]uint64{}, Worst: []EventStatus{}}
		if !w.skips {
			ss.ThresholdUs = us(w.threshold)
			ss.MissedPeriods = map[string]uint64{}
		}
		for c := range NumCauses {
			n := w.counters[c].Get()
			ss.Causes[c.String()] = n
			ss.Total += n
			if !w.skips {
				ss.MissedPeriods[c.String()] = w.missed[c].Get()
			}
		}
		m.mu.Lock()
		ss.StampsLost = w.lost
		var evs []Event
		for i := w.nRecent - min(w.nRecent, recentEvents); i < w.nRecent; i++ {
			if ev := w.recent[i%recentEvents]; now.Sub(ev.Time) <= recentAge {
				evs = append(evs, ev)
			}
		}
		m.mu.Unlock()
		slices.SortStableFunc(evs, func(a, b Event) int {
			return cmp.Or(cmp.Compare(b.Late, a.Late), b.Time.Compare(a.Time))
		})
		for _, ev := range evs[:min(len(evs), worstShown)] {
			ss.Worst = append(ss.Worst, eventStatus(&ev))
		}
		if w.skips {
			st.DataSources = append(st.DataSources, ss)
		} else {
			st.Threads = append(st.Threads, ss)
		}
	}
	return st
}

// Status returns the event as /status shows it.
func (e *Event) Status() EventStatus { return eventStatus(e) }

func eventStatus(ev *Event) EventStatus {
	v := &ev.Evidence
	return EventStatus{
		Time: ev.Time.UTC().Format(time.RFC3339Nano), Counter: ev.Counter, LateUs: us(ev.Late), MissedPeriods: ev.Missed,
		Cause: ev.Cause.String(), Explanation: ev.Explain(),
		Evidence: EvidenceStatus{
			WindowUs: us(v.Window), CPU: v.CPU, StealUs: us(v.Steal), WaitUs: us(v.Wait), RunUs: us(v.Run),
			InvoluntarySwitches: v.InvoluntarySwitches, Blocked: v.Blocked, ExtraRunUs: us(v.ExtraRun), StealLastSecondUs: us(v.StealLastSecond), RuntimeStallUs: us(v.RuntimeStall), MinorFaults: v.MinorFaults, MajorFaults: v.MajorFaults, YieldLateUs: us(v.YieldLate),
			GoPauses: v.GoPauses, GCPauses: v.GCPauses, GoPauseUs: us(v.GoPause), ThreadKnown: v.ThreadKnown, FIFO: v.FIFO,
			Step: v.Step, StepUs: us(v.StepTime),
		},
	}
}

// Events returns the source's most recent attributed events, oldest
// first (at most 64), for tests and tools. Any goroutine.
func (m *Monitor) Events(source string) []Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, w := range m.watches {
		if w.name != source {
			continue
		}
		var evs []Event
		for i := w.nRecent - min(w.nRecent, recentEvents); i < w.nRecent; i++ {
			evs = append(evs, w.recent[i%recentEvents])
		}
		return evs
	}
	return nil
}

// Counts returns how many events of the source were put down to each
// cause (lost stamps count as Unknown).
func (m *Monitor) Counts(source string) (n [NumCauses]uint64) {
	for _, w := range m.watches {
		if w.name == source {
			for c := range NumCauses {
				n[c] = w.counters[c].Get()
			}
		}
	}
	return n
}
