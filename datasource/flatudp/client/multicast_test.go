package client_test

import (
	"net"
	"slices"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource/flatudp/client"
	"github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/internal/flatenc"
	"github.com/streamerd/streamerd/internal/flattest"
)

// TestMulticastLoopback joins a group on the loopback interface, named by
// its address and by its name, and sends to it with IP_MULTICAST_IF and
// IP_MULTICAST_LOOP. It runs wherever multicast on loopback works
// (flattest.Group skips, saying why, elsewhere); it never changes routing.
func TestMulticastLoopback(t *testing.T) {
	group := flattest.Group(t)
	l, err := wire.ParseLayout("Trigger:uint8,Ia:float32,Wave:float32[16]")
	if err != nil {
		t.Fatal(err)
	}
	for _, iface := range []string{"127.0.0.1", "lo"} {
		t.Run(iface, func(t *testing.T) {
			conn, err := client.ListenMulticast(group, iface, 0)
			if err != nil {
				t.Fatal(err)
			}
			r := client.NewReceiver(conn, l)
			defer r.Close()
			port := conn.LocalAddr().(*net.UDPAddr).Port
			if got := conn.LocalAddr().(*net.UDPAddr).IP.String(); got != group {
				t.Errorf("bound to %s, want the group %s", got, group)
			}
			s, err := flattest.DialMulticast(group, iface, port)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			vals := make([]float64, l.TotalElements())
			for k := range vals {
				vals[k] = float64(k)
			}
			dg := flatenc.AppendValues(nil, l, vals, wire.Little)
			// A unicast datagram to the port must not reach a socket bound
			// to the group: it would be reported as a wrong size first.
			if u, err := net.DialUDP("udp4", nil, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}); err == nil {
				u.Write([]byte("unicast"))
				u.Close()
			}
			if _, err := s.Write(dg); err != nil {
				t.Fatal(err)
			}
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			b, _, err := r.Read()
			if err != nil {
				t.Fatalf("no datagram through %s via %s: %v", group, iface, err)
			}
			got := make([]float64, l.TotalElements())
			if err := l.Decode(got, b, wire.Little); err != nil || !slices.Equal(got, vals) {
				t.Fatalf("decoded %v, %v", got, err)
			}
		})
	}
}
