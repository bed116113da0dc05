//go:build !portable

package pmqos

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// holdWakeLatency opens /dev/cpu_dma_latency and writes us to it (native
// endian int32, capped), keeping the file open.
func holdWakeLatency(us int) (io.Closer, error) {
	f, err := os.OpenFile("/dev/cpu_dma_latency", os.O_WRONLY, 0)
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			return nil, fmt.Errorf("pmqos: CPUWakeLatency needs root or write access to /dev/cpu_dma_latency: %w", err)
		}
		return nil, fmt.Errorf("pmqos: CPUWakeLatency: %w", err)
	}
	var b [4]byte
	binary.NativeEndian.PutUint32(b[:], uint32(int32(min(us, 2_000_000_000))))
	if _, err := f.Write(b[:]); err != nil {
		f.Close()
		return nil, fmt.Errorf("pmqos: CPUWakeLatency: writing /dev/cpu_dma_latency: %w", err)
	}
	return f, nil
}
