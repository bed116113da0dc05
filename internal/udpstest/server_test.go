package udpstest

import (
	"net"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
)

// TestSendWithoutSession: after the client's DISCONNECT the server sends
// nothing and reports no error, as a UDPStreamer does; a test that sends more
// updates than its client reads (udps -n) must not fail on the client leaving.
func TestSendWithoutSession(t *testing.T) {
	s := NewServer(t, []datasource.Signal{{Name: "x", Type: datasource.Uint32}}, 1400)
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	connected := s.Connected()
	if _, err := c.WriteToUDPAddrPort(ConnectDatagram(), s.Addr()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-connected:
	case <-time.After(10 * time.Second):
		t.Fatal("CONNECT not answered")
	}
	if _, err := c.WriteToUDPAddrPort(header(nil, typeDisconnect, 0, 0, 1, 0), s.Addr()); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); s.Disconnects() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("DISCONNECT not seen")
		}
	}
	p, err := Payload([]datasource.Signal{{Name: "x", Type: datasource.Uint32}}, 1, [][]float64{{7}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SendUpdate(0, p); err != nil {
		t.Errorf("SendUpdate without a session: %v", err)
	}
	if err := s.SendConfig(); err != nil {
		t.Errorf("SendConfig without a session: %v", err)
	}
	if err := s.SendDatagram(p); err != nil {
		t.Errorf("SendDatagram without a session: %v", err)
	}
}
