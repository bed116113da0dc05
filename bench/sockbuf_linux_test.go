package bench

import "golang.org/x/sys/unix"

// The options that set a socket buffer past net.core.{r,w}mem_max.
const (
	soRcvBufForce = unix.SO_RCVBUFFORCE
	soSndBufForce = unix.SO_SNDBUFFORCE
)
