//go:build !portable

package app

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// runtimePrioPasses bounds the passes over the process's threads: a pass
// that changes no thread ends it, since every thread cloned since then was
// cloned from one already changed.
const runtimePrioPasses = 8

// setRuntimePriority puts every thread of the process that runs under
// normal scheduling (SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE) in SCHED_FIFO
// at prio and returns their ids. Threads already real-time keep their
// policy and priority. The Go runtime clones its new threads from running
// ones (or from its template thread, one of these), so they inherit prio.
func setRuntimePriority(prio int) (changed []int, err error) {
	seen := map[int]bool{}
	for range runtimePrioPasses {
		tids, err := threadIDs()
		if err != nil {
			return changed, err
		}
		n := 0
		for _, tid := range tids {
			if seen[tid] {
				continue
			}
			seen[tid] = true
			attr, err := unix.SchedGetAttr(tid, 0)
			if err != nil { // the thread has exited
				continue
			}
			if attr.Policy == unix.SCHED_FIFO || attr.Policy == unix.SCHED_RR {
				continue
			}
			set := unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: uint32(prio)}
			if err := unix.SchedSetAttr(tid, &set, 0); err != nil {
				if errors.Is(err, unix.ESRCH) {
					continue
				}
				if errors.Is(err, unix.EPERM) {
					return changed, fmt.Errorf("RuntimePriority %d: SCHED_FIFO refused: needs root or CAP_SYS_NICE (or RLIMIT_RTPRIO): %w", prio, err)
				}
				return changed, fmt.Errorf("RuntimePriority %d: thread %d: %w", prio, tid, err)
			}
			changed = append(changed, tid)
			n++
		}
		if n == 0 {
			return changed, nil
		}
	}
	return changed, nil
}

// restoreRuntimePriority puts the threads at SCHED_FIFO prio back under
// normal scheduling: those setRuntimePriority changed and those the
// runtime cloned from them since. Threads at another real-time priority
// (the RT and network threads) keep theirs.
func restoreRuntimePriority(prio int) {
	tids, err := threadIDs()
	if err != nil {
		return
	}
	for _, tid := range tids {
		attr, err := unix.SchedGetAttr(tid, 0)
		if err != nil || attr.Policy != unix.SCHED_FIFO || attr.Priority != uint32(prio) {
			continue
		}
		_ = unix.SchedSetAttr(tid, &unix.SchedAttr{Policy: unix.SCHED_NORMAL}, 0)
	}
}

// threadIDs lists the threads of the process.
func threadIDs() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, fmt.Errorf("RuntimePriority: %w", err)
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}
