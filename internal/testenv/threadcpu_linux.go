package testenv

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ThreadCPU returns the CPU time used so far by the newest thread of the
// process named name (its comm, at most 15 bytes, as netthread names its
// threads), read from /proc/self/task/<tid>/schedstat, in nanoseconds of
// the scheduler's clock, and its thread id; ok is false when no such
// thread runs. A caller comparing two readings checks that the id is the
// same.
func ThreadCPU(name string) (d time.Duration, tid int, ok bool) {
	if len(name) > 15 {
		name = name[:15]
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0, 0, false
	}
	for _, e := range tasks {
		id, err := strconv.Atoi(e.Name())
		if err != nil || id < tid {
			continue
		}
		comm, err := os.ReadFile("/proc/self/task/" + e.Name() + "/comm")
		if err != nil || strings.TrimSpace(string(comm)) != name {
			continue
		}
		stat, err := os.ReadFile("/proc/self/task/" + e.Name() + "/schedstat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat))
		if len(f) == 0 {
			continue
		}
		if ns, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			d, tid, ok = time.Duration(ns), id, true
		}
	}
	return d, tid, ok
}

// ProcessCPU returns the CPU time the whole process has used so far, every
// thread of it (the Go runtime's own included), user and system.
func ProcessCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
