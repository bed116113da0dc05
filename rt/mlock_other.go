//go:build !linux || portable

package rt

import (
	"fmt"

	"github.com/streamerd/streamerd/rt/cpu"
)

// lockMemory returns cpu.ErrNotSupported: mlockall is Linux's here.
func lockMemory() error { return fmt.Errorf("mlockall: %w", cpu.ErrNotSupported) }
