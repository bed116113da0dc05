package config

import (
	"strings"
	"testing"

	"github.com/streamerd/streamerd/rt/cpu"
)

// TestThreadKnobsOnEveryProducer sets CPUMask and Priority on the network
// or sender thread of each producer: the same keys reach each producer's
// Config, and a bad value breaks the same rule with the same words.
func TestThreadKnobsOnEveryProducer(t *testing.T) {
	for _, c := range []struct{ base, class string }{
		{baseUDPS, "UDPStreamer"}, {baseFlat, "FlatUDP"}, {baseRD, "RD100S"},
	} {
		line := `Class = "` + c.class + `"`
		f, err := Parse("k.toml", []byte(edit(t, c.base, line, line+"\nCPUMask = \"0x2\"\nPriority = 42")))
		if err != nil {
			t.Fatalf("%s: %v", c.class, err)
		}
		var mask cpu.Mask
		var prio int
		switch d := f.DataSources[0]; {
		case d.UDPStreamer != nil:
			mask, prio = d.UDPStreamer.CPUMask, d.UDPStreamer.Priority
		case d.FlatUDP != nil:
			mask, prio = d.FlatUDP.CPUMask, d.FlatUDP.Priority
		case d.RD100S != nil:
			mask, prio = d.RD100S.CPUMask, d.RD100S.Priority
		}
		if mask != cpu.Of(1) || prio != 42 {
			t.Errorf("%s: CPUMask %v, Priority %d", c.class, mask, prio)
		}
		for _, bad := range []struct{ edit, want string }{
			{"Priority = 100", `: Priority: must be 0 (normal scheduling) or 1..99 (SCHED_FIFO), got 100`},
			{"Priority = -1", `: Priority: must be 0 (normal scheduling) or 1..99 (SCHED_FIFO), got -1`},
			{`CPUMask = "two"`, `: CPUMask: expected a CPU bit mask such as "0x2", "0b10" or 2, got "two"`},
		} {
			_, err := Parse("k.toml", []byte(edit(t, c.base, line, line+"\n"+bad.edit)))
			if err == nil || !strings.Contains(err.Error(), bad.want) {
				t.Errorf("%s, %s: got %v, want %s", c.class, bad.edit, err, bad.want)
			}
		}
	}
}
