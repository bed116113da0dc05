//go:build !portable

package pmqos

import (
	"encoding/binary"
	"os"
	"testing"
)

func TestHoldWakeLatency(t *testing.T) {
	if _, err := os.Stat("/dev/cpu_dma_latency"); err != nil {
		t.Skipf("no PM QoS device here: %v", err)
	}
	c, err := HoldWakeLatency(7)
	if err != nil {
		t.Skipf("not permitted here: %v", err)
	}
	// The device reads back the value in force: at most what we hold.
	b, err := os.ReadFile("/dev/cpu_dma_latency")
	if err == nil && len(b) == 4 {
		if v := int32(binary.NativeEndian.Uint32(b)); v > 7 {
			t.Errorf("latency in force %d µs while holding 7", v)
		}
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
}
