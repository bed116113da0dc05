//go:build !linux

package bench

// No option sets a socket buffer past the system's cap here.
const (
	soRcvBufForce = -1
	soSndBufForce = -1
)
