package handoff

import (
	"testing"
	"time"
)

func TestAuto(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name          string
		depth         int
		period, cover time.Duration
		slot, budget  int
		max           int
		want          Size
	}{
		{"1 kHz, 200 ms", 0, ms, 200 * ms, 4096, 64 << 20, 65536,
			Size{Depth: 200, Auto: true, Covers: 200 * ms, Period: ms, Bytes: 200 * 4096}},
		{"defaults", 0, 0, 0, 100, 0, 65536,
			Size{Depth: 500, Auto: true, Covers: 500 * ms, Period: ms, Bytes: 500 * 100}},
		{"rounded up", 0, 3 * ms, 10 * ms, 8, 1 << 20, 65536,
			Size{Depth: 4, Auto: true, Covers: 12 * ms, Period: 3 * ms, Bytes: 32}},
		{"budget", 0, 100 * time.Microsecond, 200 * ms, 1 << 20, 64 << 20, 65536,
			Size{Depth: 64, Auto: true, Covers: 6400 * time.Microsecond, Period: 100 * time.Microsecond, Bytes: 64 << 20, Limited: true}},
		{"producer bound", 0, time.Microsecond, time.Second, 8, 64 << 20, 1000,
			Size{Depth: 1000, Auto: true, Covers: ms, Period: time.Microsecond, Bytes: 8000, Limited: true}},
		{"one slot at least", 0, ms, 200 * ms, 100 << 20, 64 << 20, 65536,
			Size{Depth: 1, Auto: true, Covers: ms, Period: ms, Bytes: 100 << 20, Limited: true}},
		{"given", 32, 500 * time.Microsecond, 0, 10, 0, 65536,
			Size{Depth: 32, Covers: 16 * ms, Period: 500 * time.Microsecond, Bytes: 320}},
	} {
		if got := Auto(c.depth, c.period, c.cover, c.slot, c.budget, c.max); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	if s := Auto(0, ms, 0, 4096, 0, 65536).String(); s != "500 cycles (auto), 500ms at 1ms a cycle, 2.0 MiB" {
		t.Errorf("String: %q", s)
	}
	if s := Auto(1, ms, 0, 100, 0, 65536).String(); s != "1 cycle, 1ms at 1ms a cycle, 0.0 MiB" {
		t.Errorf("String: %q", s)
	}
}
