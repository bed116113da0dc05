// Package pmqos holds the CPUs' wake-up latency low through the kernel's PM QoS interface, for the daemon's CPUWakeLatency and the benchmarks.
package pmqos

import (
	"fmt"
	"io"
)

// HoldWakeLatency asks the kernel, through the PM QoS interface
// /dev/cpu_dma_latency, to keep every CPU able to wake within us
// microseconds, for as long as the returned Closer is open. On a VM whose
// idle vCPUs halt, waking a parked thread otherwise costs several
// microseconds more (BENCHMARKS.md); cyclictest holds 0 by default for the
// same reason. It costs power: idle CPUs stay in shallow states. It needs
// root (or write access to the device); off Linux it returns an error
// matching cpu.ErrNotSupported.
func HoldWakeLatency(us int) (io.Closer, error) {
	if us < 0 {
		return nil, fmt.Errorf("pmqos: wake latency %d µs: must be ≥ 0", us)
	}
	return holdWakeLatency(us)
}
