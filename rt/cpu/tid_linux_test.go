//go:build !portable

package cpu

import (
	"os"
	"strconv"
	"testing"
)

// TestThreadIDNamesATask: the id of the calling thread, and of a thread
// StartThread runs, names a task under /proc/self/task.
func TestThreadIDNamesATask(t *testing.T) {
	var tid int
	_, done, err := StartThread(0, 0, func() { tid = ThreadID() })
	if err != nil {
		t.Fatal(err)
	}
	<-done
	if tid <= 0 {
		t.Fatalf("ThreadID %d", tid)
	}
	self := ThreadID()
	if _, err := os.Stat("/proc/self/task/" + strconv.Itoa(self)); err != nil {
		t.Fatalf("ThreadID %d: %v", self, err)
	}
}

// TestStartThreadLeavesTheMainThread: the thread StartThread runs is never
// the process's main thread, whose name, affinity and policy are the
// process's (ps, chrt -p, taskset -p) and which the runtime keeps when a
// goroutine locked to it returns. The test's main goroutine waits for the
// tests, so the main thread is free to run a new goroutine.
func TestStartThreadLeavesTheMainThread(t *testing.T) {
	for i := range 50 {
		var tid int
		_, done, err := StartThread(0, 0, func() { tid = ThreadID() })
		if err != nil {
			t.Fatal(err)
		}
		<-done
		if tid == os.Getpid() {
			t.Fatalf("start %d ran on the main thread (tid %d)", i, tid)
		}
	}
}
