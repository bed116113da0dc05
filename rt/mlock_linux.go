//go:build !portable

package rt

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// lockMemory locks every current and future page of the process in RAM
// (mlockall(MCL_CURRENT|MCL_FUTURE)), so the RT thread never takes a major
// page fault. It acts on the whole process and is never undone.
func lockMemory() error {
	err := unix.Mlockall(unix.MCL_CURRENT | unix.MCL_FUTURE)
	switch {
	case errors.Is(err, unix.EPERM):
		return fmt.Errorf("mlockall refused: needs root or CAP_IPC_LOCK: %w", err)
	case errors.Is(err, unix.ENOMEM):
		return fmt.Errorf("mlockall: RLIMIT_MEMLOCK too small for the process (raise ulimit -l or run as root): %w", err)
	case err != nil:
		return fmt.Errorf("mlockall: %w", err)
	}
	return nil
}
