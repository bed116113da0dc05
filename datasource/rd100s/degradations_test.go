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
		check      func(d *Degradations) bool
	}{
		{"loss_probability", "0.25", func(d *Degradations) bool { return d.LossProbability == 0.25 }},
		{"loss_every_n", " 5 ", func(d *Degradations) bool { return d.LossEveryN == 5 }},
		{"burst_loss_ms", "250", func(d *Degradations) bool { return d.BurstLoss == 250*time.Millisecond }},
		{"burst_loss_ms", "1.5s", func(d *Degradations) bool { return d.BurstLoss == 1500*time.Millisecond }},
		{"reorder_window_ms", "0.5", func(d *Degradations) bool { return d.ReorderWindow == 500*time.Microsecond }},
		{"jitter_ms", "2", func(d *Degradations) bool { return d.Jitter == 2*time.Millisecond }},
		{"freeze", "on", func(d *Degradations) bool { return d.Freeze }},
		{"invalid_az", "TRUE", func(d *Degradations) bool { return d.InvalidAz }},
		{"invalid_el", "yes", func(d *Degradations) bool { return d.InvalidEl }},
		{"seq_jump", "-100", func(d *Degradations) bool { return d.SeqJump == -100 }},
		{"silence", "1", func(d *Degradations) bool { return d.Silence }},
		{"duplicate_probability", "1", func(d *Degradations) bool { return d.DuplicateProbability == 1 }},
	}
	for _, c := range cases {
		var d Degradations
		if err := d.SetKey(c.key, c.value); err != nil || !c.check(&d) {
			t.Errorf("%s=%q: %v, %+v", c.key, c.value, err, d)
		}
	}
	var d Degradations
	for _, bad := range [][2]string{{"seq_jump", "3000000000"}, {"jitter_ms", "soon"}, {"loss_every_n", "1.5"}, {"nope", "1"}} {
		if err := d.SetKey(bad[0], bad[1]); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%s=%q: %v", bad[0], bad[1], err)
		}
	}
	b, _ := json.Marshal(Degradations{BurstLoss: 1500 * time.Microsecond, SeqJump: 3, Freeze: true})
	if want := `"burst_loss_ms":1.5`; !strings.Contains(string(b), want) || !strings.Contains(string(b), `"seq_jump":3`) {
		t.Errorf("JSON %s", b)
	}
}

// FuzzSetKey: SetKey never panics, and what Get writes SetKey reads back
// to the same value.
func FuzzSetKey(f *testing.F) {
	seed := Degradations{LossProbability: 0.125, LossEveryN: 4, BurstLoss: 40 * time.Millisecond, DuplicateProbability: 0.5,
		ReorderWindow: 1500 * time.Microsecond, Jitter: time.Millisecond, Freeze: true, InvalidAz: true, SeqJump: -7, Silence: true}
	for _, k := range keys {
		v, _ := seed.Get(k)
		f.Add(k, v)
	}
	f.Add("jitter_ms", "1e400")
	f.Add("burst_loss_ms", "NaN")
	f.Add("burst_loss_ms", "-9223372036854775808ns")
	f.Fuzz(func(t *testing.T, key, value string) {
		var d Degradations
		if d.SetKey(key, value) != nil {
			return
		}
		v, err := d.Get(key)
		if err != nil {
			t.Fatalf("Get(%q) after SetKey: %v", key, err)
		}
		var d2 Degradations
		if err := d2.SetKey(key, v); err != nil {
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
