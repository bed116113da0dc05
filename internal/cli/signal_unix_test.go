//go:build unix

package cli

import (
	"bytes"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
)

func kill(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := syscall.Kill(os.Getpid(), sig); err != nil {
		t.Fatal(err)
	}
}

// TestNotifyContextSecondSignal: the first signal cancels, the second
// exits at once.
func TestNotifyContextSecondSignal(t *testing.T) {
	var stderr testenv.Buffer
	exited := make(chan int, 1)
	ctx, stop := notifyContext("tool", &stderr, time.Hour, func(code int) { exited <- code })
	defer stop()
	kill(t, syscall.SIGINT)
	<-ctx.Done()
	kill(t, syscall.SIGTERM)
	if code := <-exited; code != ExitInterrupted || !strings.Contains(stderr.String(), "tool: interrupted again") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// TestNotifyContextGrace: a program still running grace after the signal
// is made to exit.
func TestNotifyContextGrace(t *testing.T) {
	var stderr testenv.Buffer
	exited := make(chan int, 1)
	ctx, stop := notifyContext("tool", &stderr, 10*time.Millisecond, func(code int) { exited <- code })
	defer stop()
	kill(t, syscall.SIGINT)
	<-ctx.Done()
	if code := <-exited; code != ExitInterrupted || !strings.Contains(stderr.String(), "output blocked") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// TestNotifyContextStop: after stop, no exit, however long it waits.
func TestNotifyContextStop(t *testing.T) {
	exited := make(chan int, 1)
	ctx, stop := notifyContext("tool", &bytes.Buffer{}, time.Millisecond, func(code int) { exited <- code })
	stop()
	if ctx.Err() == nil {
		t.Error("stop did not cancel the context")
	}
	select {
	case code := <-exited:
		t.Errorf("exited with %d after stop", code)
	case <-time.After(50 * time.Millisecond):
	}
}
