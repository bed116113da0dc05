package cycles

import (
	"testing"
	"time"

	"github.com/streamerd/streamerd/rt"
)

// BenchmarkRecord is what the daemon's monitor adds to every cycle of an
// RT thread with four steps: a timing row, and for a late cycle a
// late-cycle row too.
func BenchmarkRecord(b *testing.B) {
	nop := stepFunc(func() error { return nil })
	steps := []rt.Step{{Name: "a", Exec: nop}, {Name: "b", Exec: nop}, {Name: "c", Exec: nop}, {Name: "d", Exec: nop}}
	for _, bc := range []struct {
		name string
		wake time.Duration
	}{{"ontime", 10 * time.Microsecond}, {"late", 900 * time.Microsecond}} {
		b.Run(bc.name, func(b *testing.B) {
			th, err := New(rt.Config{Frequency: 1000}, steps, nil, 0)
			if err != nil {
				b.Fatal(err)
			}
			c := &rt.Cycle{Counter: 1, Wake: bc.wake, CycleTime: time.Millisecond, Steps: make([]time.Duration, len(steps))}
			b.ReportAllocs()
			for b.Loop() {
				c.Counter++
				th.record(c)
			}
		})
	}
}
