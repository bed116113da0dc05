package app

import (
	"slices"
	"testing"
)

// TestStatusForcesInSignalOrder forces signals in an order of its own and
// checks /status lists them in signal order, the same every time.
func TestStatusForcesInSignalOrder(t *testing.T) {
	a, _ := startFile(t, exampleFile(t, "app.toml"))
	names := []string{"Streamer.I8", "Streamer.Counter", "Streamer.U8", "Streamer.CounterCopy"}
	for _, n := range names {
		if _, err := a.Force(n, "1"); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"Streamer.Counter", "Streamer.CounterCopy", "Streamer.U8", "Streamer.I8"}
	for range 20 {
		var got []string
		for _, f := range a.Status().Forces {
			got = append(got, f.Signal)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("forces %v, want %v", got, want)
		}
	}
}
