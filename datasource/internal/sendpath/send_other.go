//go:build !linux || portable

package sendpath

import (
	"errors"
	"net"
	"net/netip"
)

// kernel has no batched send calls here: only MethodSendto is available.
type kernel struct{}

var errNoBatching = errors.New("GSO and sendmmsg are Linux's")

func (*kernel) init(*net.UDPConn) error                { return nil }
func (*kernel) probe() SendMethod                      { return MethodSendto }
func (*kernel) gsoSupported() bool                     { return false }
func (*kernel) mmsgSupported() bool                    { return false }
func (*kernel) setDestination(netip.AddrPort, bool)    {}
func (*kernel) sendMmsg([]byte, int, int) (int, error) { return 0, errNoBatching }
func (*kernel) sendGSO([]byte, int, int) (int, bool, error) {
	return 0, false, errNoBatching
}
