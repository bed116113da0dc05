package netthread

import (
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/rt/cpu"
)

// TestThreadID: ThreadID is the id the body's own thread reads.
func TestThreadID(t *testing.T) {
	inside := make(chan int, 1)
	th, err := Start(Config{Name: "svc"}, func(stop <-chan struct{}) {
		inside <- cpu.ThreadID()
		<-stop
	})
	if err != nil {
		t.Fatal(err)
	}
	want := <-inside
	if got := th.ThreadID(); got != want || (!testenv.Portable && got == 0) {
		t.Errorf("ThreadID %d, the body's thread is %d", got, want)
	}
	th.Stop()
}
