//go:build !linux || portable

package cpu

import (
	"fmt"
	"io"
)

// holdWakeLatency returns ErrNotSupported: the PM QoS device is Linux's.
func holdWakeLatency(int) (io.Closer, error) {
	return nil, fmt.Errorf("cpu: CPUWakeLatency: %w", ErrNotSupported)
}
