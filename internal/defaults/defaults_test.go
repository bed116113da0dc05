package defaults

import (
	"testing"
	"time"
)

func TestPositive(t *testing.T) {
	for _, c := range []struct{ v, want time.Duration }{{0, 7}, {-1, 7}, {1, 1}, {time.Hour, time.Hour}} {
		if got := Positive(c.v, 7); got != c.want {
			t.Errorf("Positive(%v, 7) = %v, want %v", c.v, got, c.want)
		}
	}
	if got := Positive(-0.5, 2.5); got != 2.5 {
		t.Errorf("Positive(-0.5, 2.5) = %v", got)
	}
}
