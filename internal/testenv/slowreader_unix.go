//go:build unix

package testenv

import (
	"net"
	"syscall"
	"testing"
)

// dialSmallReceiveBuffer dials addr over TCP with a 4 KiB receive buffer.
func dialSmallReceiveBuffer(_ testing.TB, addr string) (net.Conn, error) {
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var err error
		if cerr := rc.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) }); cerr != nil {
			return cerr
		}
		return err
	}}
	return d.Dial("tcp", addr)
}
