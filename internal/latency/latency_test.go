package latency

import "testing"

func TestPercentile(t *testing.T) {
	ns := []int64{5, 1, 4, 2, 3}
	for p, want := range map[float64]int64{0: 1, 50: 3, 100: 5} {
		if got := Percentile(ns, p); got != want {
			t.Errorf("p%v = %d, want %d", p, got, want)
		}
	}
	if Percentile(nil, 50) != 0 {
		t.Error("empty")
	}
	s := New(2)
	s.AddNanos(1)
	s.AddNanos(2)
	s.AddNanos(3) // dropped
	if s.Len() != 2 {
		t.Errorf("len %d", s.Len())
	}
}
