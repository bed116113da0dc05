package client

import (
	"net"

	"golang.org/x/sys/unix"
)

// setReadBuffer sizes the socket's receive buffer. The kernel caps
// SO_RCVBUF at net.core.rmem_max (about 208 KiB by default, less than two
// 140 KB updates), so it first tries SO_RCVBUFFORCE, which a privileged
// process (root or CAP_NET_ADMIN) may set beyond the cap, then falls back.
func setReadBuffer(conn *net.UDPConn, n int) error {
	rc, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	var forced error
	if err := rc.Control(func(fd uintptr) {
		forced = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, n)
	}); err == nil && forced == nil {
		return nil
	}
	return conn.SetReadBuffer(n)
}
