//go:build !linux || portable

package udpsend

import (
	"errors"
	"net"
	"net/netip"
)

// kernel has no batched send calls here: only Loop is available.
type kernel struct{}

var errNoBatching = errors.New("udpsend: GSO and sendmmsg are Linux's")

func (*kernel) init(*net.UDPConn) error                { return nil }
func (*kernel) probe() Method                          { return Loop }
func (*kernel) gsoSupported() bool                     { return false }
func (*kernel) mmsgSupported() bool                    { return false }
func (*kernel) setDestination(netip.AddrPort, bool)    {}
func (*kernel) sendMmsg([]byte, int, int) (int, error) { return 0, errNoBatching }
func (*kernel) sendGSO([]byte, int, int) (int, bool, error) {
	return 0, false, errNoBatching
}
