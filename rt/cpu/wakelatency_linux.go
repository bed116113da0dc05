//go:build !portable

package cpu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// HoldWakeLatency asks the kernel, through the PM QoS interface
// /dev/cpu_dma_latency, to keep every CPU able to wake within us
// microseconds, for as long as the returned Closer is open. On a VM whose
// idle vCPUs halt, waking a parked thread otherwise costs several
// microseconds more (BENCHMARKS.md); cyclictest holds 0 by default for the
// same reason. It costs power: idle CPUs stay in shallow states. It needs
// root (or write access to the device).
func HoldWakeLatency(us int) (io.Closer, error) {
	if us < 0 {
		return nil, fmt.Errorf("cpu: wake latency %d µs: must be ≥ 0", us)
	}
	f, err := os.OpenFile("/dev/cpu_dma_latency", os.O_WRONLY, 0)
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			return nil, fmt.Errorf("cpu: CPUWakeLatency needs root or write access to /dev/cpu_dma_latency: %w", err)
		}
		return nil, fmt.Errorf("cpu: CPUWakeLatency: %w", err)
	}
	var b [4]byte
	binary.NativeEndian.PutUint32(b[:], uint32(int32(min(us, 2_000_000_000))))
	if _, err := f.Write(b[:]); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu: CPUWakeLatency: writing /dev/cpu_dma_latency: %w", err)
	}
	return f, nil
}
