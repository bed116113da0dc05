//go:build !linux || portable

package sendpath

import "net"

// ErrQueue reads the ICMP errors the kernel queued on a UDP socket; only
// Linux queues them (IP_RECVERR): elsewhere the queue is always empty.
type ErrQueue struct{}

// EnableICMPErrors returns an ErrQueue that never holds an error: off
// Linux, a vanished receiver goes unnoticed.
func EnableICMPErrors(*net.UDPConn) (*ErrQueue, error) { return &ErrQueue{}, nil }

// Read reads nothing and returns 0.
func (*ErrQueue) Read(func(ICMPError)) int { return 0 }
