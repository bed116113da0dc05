package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// ExitInterrupted is the status of a receiver that had to be stopped
// without its orderly end.
const ExitInterrupted = 130

// Grace is how long a receiver may take to stop after SIGINT or SIGTERM.
const Grace = 2 * time.Second

// NotifyContext returns a context that SIGINT or SIGTERM cancels, like
// signal.NotifyContext, with a guarantee: once signalled, the program has
// grace to stop in order (a summary, a DISCONNECT); a second signal, or
// the end of grace (an output nobody reads blocks a write forever), makes
// it say so on stderr and exit with ExitInterrupted. Call stop when the
// program no longer needs the guarantee.
func NotifyContext(name string, stderr io.Writer, grace time.Duration) (ctx context.Context, stop func()) {
	return notifyContext(name, stderr, grace, os.Exit)
}

func notifyContext(name string, stderr io.Writer, grace time.Duration, exit func(int)) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	done := make(chan struct{})
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		cancel()
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-sigs:
			fmt.Fprintf(stderr, "%s: interrupted again; exiting at once\n", name)
		case <-t.C:
			fmt.Fprintf(stderr, "%s: still not stopped %v after the signal (is the output blocked?); exiting\n", name, grace)
		case <-done:
			return
		}
		exit(ExitInterrupted)
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// Main runs a command's body under NotifyContext's guarantee, with grace
// (Grace unless the command needs longer to stop in order), and exits with
// the code it returns.
func Main(name string, grace time.Duration, body func(ctx context.Context) int) {
	ctx, stop := NotifyContext(name, os.Stderr, grace)
	code := body(ctx)
	stop()
	os.Exit(code)
}
