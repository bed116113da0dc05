package rd100s

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestSetKeyParses(t *testing.T) {
	cases := []struct {
		key, value string
		check      func(d *degradations) bool
	}{
		{"loss_probability", "0.25", func(d *degradations) bool { return d.LossProbability == 0.25 }},
		{"loss_every_n", " 5 ", func(d *degradations) bool { return d.LossEveryN == 5 }},
		{"burst_loss_ms", "250", func(d *degradations) bool { return d.BurstLoss == 250*time.Millisecond }},
		{"burst_loss_ms", "1.5s", func(d *degradations) bool { return d.BurstLoss == 1500*time.Millisecond }},
		{"reorder_window_ms", "0.5", func(d *degradations) bool { return d.ReorderWindow == 500*time.Microsecond }},
		{"jitter_ms", "2", func(d *degradations) bool { return d.Jitter == 2*time.Millisecond }},
		{"freeze", "on", func(d *degradations) bool { return d.Freeze }},
		{"invalid_az", "TRUE", func(d *degradations) bool { return d.InvalidAz }},
		{"invalid_el", "yes", func(d *degradations) bool { return d.InvalidEl }},
		{"seq_jump", "-100", func(d *degradations) bool { return d.SeqJump == -100 }},
		{"silence", "1", func(d *degradations) bool { return d.Silence }},
		{"duplicate_probability", "1", func(d *degradations) bool { return d.DuplicateProbability == 1 }},
	}
	for _, c := range cases {
		var d degradations
		if err := d.setKey(c.key, c.value); err != nil || !c.check(&d) {
			t.Errorf("%s=%q: %v, %+v", c.key, c.value, err, d)
		}
	}
	var d degradations
	for _, bad := range [][2]string{{"seq_jump", "3000000000"}, {"jitter_ms", "soon"}, {"loss_every_n", "1.5"}, {"nope", "1"}} {
		if err := d.setKey(bad[0], bad[1]); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%s=%q: %v", bad[0], bad[1], err)
		}
	}
	b, _ := json.Marshal(degradations{BurstLoss: 1500 * time.Microsecond, SeqJump: 3, Freeze: true})
	if want := `"burst_loss_ms":1.5`; !strings.Contains(string(b), want) || !strings.Contains(string(b), `"seq_jump":3`) {
		t.Errorf("JSON %s", b)
	}
}

// FuzzSetKey: setKey never panics, and what get writes setKey reads back
// to the same value.
func FuzzSetKey(f *testing.F) {
	seed := degradations{LossProbability: 0.125, LossEveryN: 4, BurstLoss: 40 * time.Millisecond, DuplicateProbability: 0.5,
		ReorderWindow: 1500 * time.Microsecond, Jitter: time.Millisecond, Freeze: true, InvalidAz: true, SeqJump: -7, Silence: true}
	for _, k := range keys {
		v, _ := seed.get(k)
		f.Add(k, v)
	}
	f.Add("jitter_ms", "1e400")
	f.Add("burst_loss_ms", "NaN")
	f.Add("burst_loss_ms", "-9223372036854775808ns")
	f.Fuzz(func(t *testing.T, key, value string) {
		var d degradations
		if d.setKey(key, value) != nil {
			return
		}
		v, err := d.get(key)
		if err != nil {
			t.Fatalf("get(%q) after setKey: %v", key, err)
		}
		var d2 degradations
		if err := d2.setKey(key, v); err != nil {
			t.Fatalf("%s: %q parsed, its Get %q does not: %v", key, value, v, err)
		}
		near := func(a, b time.Duration) bool { return a-b <= 2 && b-a <= 2 || a/1e9 == b/1e9 }
		if d2.LossProbability != d.LossProbability && !(d.LossProbability != d.LossProbability) ||
			d2.LossEveryN != d.LossEveryN || d2.SeqJump != d.SeqJump || d2.Freeze != d.Freeze || d2.Silence != d.Silence ||
			!near(d2.BurstLoss, d.BurstLoss) || !near(d2.Jitter, d.Jitter) || !near(d2.ReorderWindow, d.ReorderWindow) {
			t.Fatalf("%s: %q → %+v → %q → %+v", key, value, d, v, d2)
		}
	})
}
