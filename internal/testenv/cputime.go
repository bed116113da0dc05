package testenv

import (
	"time"

	"github.com/streamerd/streamerd/internal/cputime"
)

// CPUTime returns the CPU time the process has used so far, user and
// system (cputime.Process: 0 where it is not read, and the benchmarks that
// report it report 0 there).
func CPUTime() time.Duration { return cputime.Process() }
