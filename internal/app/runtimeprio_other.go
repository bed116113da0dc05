//go:build !linux || portable

package app

import (
	"fmt"

	"github.com/streamerd/streamerd/rt/cpu"
)

func setRuntimePriority(prio int) ([]int, error) {
	return nil, fmt.Errorf("RuntimePriority %d: %w", prio, cpu.ErrNotSupported)
}

func restoreRuntimePriority(int) {}
