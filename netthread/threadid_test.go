package netthread

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

// TestThreadID: ThreadID names the body's own thread: under
// /proc/self/task it carries the thread's name.
func TestThreadID(t *testing.T) {
	th, err := Start(Config{Name: "svc-tid"}, func(stop <-chan struct{}) { <-stop })
	if err != nil {
		t.Fatal(err)
	}
	defer th.Stop()
	tid := th.ThreadID()
	if testenv.Portable {
		if tid != 0 {
			t.Errorf("ThreadID %d off Linux", tid)
		}
		return
	}
	comm, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/comm")
	if err != nil || strings.TrimSpace(string(comm)) != "svc-tid" {
		t.Errorf("ThreadID %d: comm %q, %v", tid, comm, err)
	}
}
