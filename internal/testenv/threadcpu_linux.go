package testenv

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// ThreadCPU returns the CPU time used so far by the first thread of the
// process named name (its comm, at most 15 bytes, as netthread names its
// threads), read from /proc/self/task/<tid>/schedstat, in nanoseconds of
// the scheduler's clock; ok is false when no such thread runs.
func ThreadCPU(name string) (d time.Duration, ok bool) {
	if len(name) > 15 {
		name = name[:15]
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0, false
	}
	for _, e := range tasks {
		comm, err := os.ReadFile("/proc/self/task/" + e.Name() + "/comm")
		if err != nil || strings.TrimSpace(string(comm)) != name {
			continue
		}
		stat, err := os.ReadFile("/proc/self/task/" + e.Name() + "/schedstat")
		if err != nil {
			return 0, false
		}
		f := strings.Fields(string(stat))
		if len(f) == 0 {
			return 0, false
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		return time.Duration(ns), err == nil
	}
	return 0, false
}
