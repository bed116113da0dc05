//go:build !linux

package client

import "net"

// setReadBuffer sizes the socket's receive buffer; the system may cap it.
func setReadBuffer(conn *net.UDPConn, n int) error { return conn.SetReadBuffer(n) }
