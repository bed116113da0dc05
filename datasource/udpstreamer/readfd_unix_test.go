//go:build unix

package udpstreamer

import "syscall"

// readFD reads one datagram from the socket fd without the runtime poller.
func readFD(fd uintptr, b []byte) (int, error) { return syscall.Read(int(fd), b) }
