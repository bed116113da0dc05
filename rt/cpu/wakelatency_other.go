//go:build !linux || portable

package cpu

import (
	"fmt"
	"io"
)

// HoldWakeLatency checks us, then returns ErrNotSupported: the PM QoS
// device is Linux's.
func HoldWakeLatency(us int) (io.Closer, error) {
	if us < 0 {
		return nil, fmt.Errorf("cpu: wake latency %d µs: must be ≥ 0", us)
	}
	return nil, fmt.Errorf("cpu: CPUWakeLatency: %w", ErrNotSupported)
}
