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
	_, done, err := StartThread(0, 0, func() { tid = threadID() })
	if err != nil {
		t.Fatal(err)
	}
	<-done
	if tid <= 0 {
		t.Fatalf("threadID %d", tid)
	}
	self := threadID()
	if _, err := os.Stat("/proc/self/task/" + strconv.Itoa(self)); err != nil {
		t.Fatalf("threadID %d: %v", self, err)
	}
}
