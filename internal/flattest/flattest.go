// Package flattest sends FlatUDP datagrams to a multicast group on this host for the tests of receivers (test-only: no non-test file imports it).
package flattest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource/flatudp/client"
)

// DialMulticast opens a UDP socket connected to group:port that sends
// through iface (an IPv4 address or an interface name, as
// client.ListenMulticast takes it) with TTL 1 and IP_MULTICAST_LOOP, so
// receivers on this host get its datagrams. The options are set before
// the connect, which picks the route.
func DialMulticast(group, iface string, port int) (*net.UDPConn, error) {
	ctl, err := client.MulticastSendControl(iface, 1, true)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Control: ctl}
	c, err := d.Dial("udp4", net.JoinHostPort(group, strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	return c.(*net.UDPConn), nil
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
