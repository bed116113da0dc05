package rd100slink

import (
	"fmt"
	"net"

	"github.com/streamerd/streamerd/netthread"
)

// recvBuffer is the receive buffer ListenUDP asks for, in bytes.
const recvBuffer = 1 << 20

// ListenUDP opens the socket an RD100S-ENC-UDP stream is received on,
// bound to addr (host:port; port 0 picks a free one), with a receive
// buffer of 1 MiB where the system allows it (best effort: a smaller
// buffer only drops more under load). The error names addr.
func ListenUDP(addr string) (*net.UDPConn, error) {
	a, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("RD100S listen address %s: %w", addr, err)
	}
	conn, err := net.ListenUDP("udp", a)
	if err != nil {
		return nil, fmt.Errorf("RD100S listen on %s: %w", addr, err)
	}
	_, _ = netthread.SetBuffers(conn, 0, recvBuffer)
	return conn, nil
}
