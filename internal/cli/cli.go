// Package cli holds what the command-line receivers share.
package cli

import (
	"context"
	"time"
)

// Exit codes of the receivers.
const (
	ExitOK    = 0
	ExitError = 1 // a socket error, or no answer from the server
	ExitUsage = 2 // bad flags
)

// Every calls f every interval until ctx is done, with the seconds elapsed
// since the previous call (or since Every started).
func Every(ctx context.Context, interval time.Duration, f func(seconds float64)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			f(now.Sub(last).Seconds())
			last = now
		}
	}
}
