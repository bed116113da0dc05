package app

import (
	"sync"
	"time"
)

// Event is one operator action or state change worth a timestamp: a force,
// a release, a degradation switched on or off.
type Event struct {
	Time   time.Time `json:"time"`
	Kind   string    `json:"kind"`
	Target string    `json:"target"`
	Value  string    `json:"value,omitempty"`
}

// eventRingSize is how many events /status keeps. An event's Target is a
// signal or datasource name of the configuration and its Value is at most
// maxEventValue bytes, so the ring is bounded in memory too.
const eventRingSize = 256

// eventLog keeps the most recent events in a ring.
type eventLog struct {
	mu   sync.Mutex
	ring []Event
	next int
	n    int
}

func (l *eventLog) init(size int) { l.ring = make([]Event, size) }

func (l *eventLog) add(e Event) {
	l.mu.Lock()
	l.ring[l.next] = e
	l.next = (l.next + 1) % len(l.ring)
	l.n = min(l.n+1, len(l.ring))
	l.mu.Unlock()
}

// recent returns the events oldest first.
func (l *eventLog) recent() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Event, 0, l.n)
	start := (l.next - l.n + len(l.ring)) % len(l.ring)
	for i := 0; i < l.n; i++ {
		out = append(out, l.ring[(start+i)%len(l.ring)])
	}
	return out
}
