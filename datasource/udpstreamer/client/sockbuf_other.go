//go:build !linux

package client

import "net"

// setReadBuffer sizes the socket's receive buffer within the system's cap
// (SO_RCVBUFFORCE is Linux only).
func setReadBuffer(conn *net.UDPConn, n int) error { return conn.SetReadBuffer(n) }
