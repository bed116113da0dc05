//go:build !unix

package testenv

import (
	"net"
	"testing"
)

// dialSmallReceiveBuffer skips tb: the receive buffer is set the Unix way.
func dialSmallReceiveBuffer(tb testing.TB, _ string) (net.Conn, error) {
	tb.Helper()
	tb.Skip("skipped: the small receive buffer is set with Unix's setsockopt")
	return nil, nil
}
