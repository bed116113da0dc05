package cli

import "net"

// ListenUDP opens a UDP socket bound to addr ("host:port"; ":44488" is
// every local address).
func ListenUDP(addr string) (*net.UDPConn, error) {
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		return nil, err
	}
	return pc.(*net.UDPConn), nil
}
