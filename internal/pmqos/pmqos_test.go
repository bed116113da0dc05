package pmqos

import "testing"

func TestMisuseHoldWakeLatency(t *testing.T) {
	if c, err := HoldWakeLatency(-1); err == nil {
		c.Close()
		t.Error("negative latency accepted")
	}
}
