// Package flattest sends FlatUDP datagrams to a multicast group on this host for the tests of receivers (test-only: no non-test file imports it).
package flattest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource/flatudp/client"
)

// DialMulticast opens a UDP socket connected to group:port that sends
// through iface (an IPv4 address or an interface name, as
// client.ListenMulticast takes it), so receivers on this host get its
// datagrams: the socket is bound to the interface's IPv4 address, and
// Linux sends a datagram to a group through the interface of its source
// address (TTL 1 and IP_MULTICAST_LOOP are the defaults). The FlatUDP
// producer sets IP_MULTICAST_IF instead; its own tests cover that.
func DialMulticast(group, iface string, port int) (*net.UDPConn, error) {
	src, err := ifaceAddr(iface)
	if err != nil {
		return nil, err
	}
	g, err := netip.ParseAddr(group)
	if err != nil {
		return nil, err
	}
	return net.DialUDP("udp4", net.UDPAddrFromAddrPort(netip.AddrPortFrom(src, 0)), net.UDPAddrFromAddrPort(netip.AddrPortFrom(g, uint16(port))))
}

// ifaceAddr returns the IPv4 address of iface: itself when it is one, else
// the first IPv4 address of the interface of that name.
func ifaceAddr(iface string) (netip.Addr, error) {
	if a, err := netip.ParseAddr(iface); err == nil {
		return a, nil
	}
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return netip.Addr{}, err
	}
	addrs, err := ifi.Addrs()
	if err != nil {
		return netip.Addr{}, err
	}
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Is4() {
			return p.Addr(), nil
		}
	}
	return netip.Addr{}, fmt.Errorf("interface %s has no IPv4 address", iface)
}

// Group returns a random group of 239.255.0.0/16 that works on the
// loopback interface here: it joins it on 127.0.0.1, sends a datagram to
// it through 127.0.0.1 and reads it back. Where a step fails, tb skips
// and says which step and why: a test that needs multicast runs wherever
// multicast on loopback works, and says why it cannot elsewhere.
func Group(tb testing.TB) string {
	tb.Helper()
	group := netip.AddrFrom4([4]byte{239, 255, byte(rand.IntN(256)), byte(1 + rand.IntN(254))}).String()
	if err := probe(group); err != nil {
		tb.Skipf("multicast on loopback does not work on this machine, so this test cannot run: %v "+
			"(it needs the lo interface up with MULTICAST and a route for 224.0.0.0/4, e.g. ip route add 224.0.0.0/4 dev lo)", err)
	}
	return group
}

// probe joins group on 127.0.0.1, sends one datagram to it and reads it.
func probe(group string) error {
	rx, err := client.ListenMulticast(group, "127.0.0.1", 0)
	if err != nil {
		return fmt.Errorf("joining %s on 127.0.0.1: %w", group, err)
	}
	defer rx.Close()
	tx, err := DialMulticast(group, "127.0.0.1", rx.LocalAddr().(*net.UDPAddr).Port)
	if err != nil {
		return fmt.Errorf("a sender to %s through 127.0.0.1: %w", group, err)
	}
	defer tx.Close()
	buf := make([]byte, 16)
	for range 3 { // loopback delivers at once; resend in case of a lost one
		if _, err := tx.Write([]byte("probe")); err != nil {
			return fmt.Errorf("sending to %s: %w", group, err)
		}
		rx.SetReadDeadline(time.Now().Add(time.Second))
		if n, _, err := rx.ReadFromUDPAddrPort(buf); err == nil && string(buf[:n]) == "probe" {
			return nil
		}
	}
	return fmt.Errorf("nothing sent to %s through 127.0.0.1 came back in 3 s", group)
}
