//go:build !linux || portable

package pmqos

import (
	"fmt"
	"io"

	"github.com/streamerd/streamerd/rt/cpu"
)

// holdWakeLatency returns cpu.ErrNotSupported: the PM QoS device is Linux's.
func holdWakeLatency(int) (io.Closer, error) {
	return nil, fmt.Errorf("pmqos: CPUWakeLatency: %w", cpu.ErrNotSupported)
}
