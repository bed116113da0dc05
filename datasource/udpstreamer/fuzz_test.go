package udpstreamer

import (
	"net/netip"
	"testing"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
)

// FuzzHandleDatagram feeds arbitrary datagrams to the server's handling of
// its port: it never panics, every datagram lands in exactly one counter
// (or the bounded control queue), and nothing else changes.
func FuzzHandleDatagram(f *testing.F) {
	for _, typ := range []frame.PacketType{frame.Data, frame.Config, frame.Ack, frame.Connect, frame.Disconnect} {
		f.Add(frame.AppendHeader(nil, frame.Header{Type: typ, TotalFragments: 1}), false)
		f.Add(frame.AppendHeader(nil, frame.Header{Type: typ, TotalFragments: 2, FragmentIdx: 1, PayloadBytes: 3}), true)
	}
	f.Add([]byte{}, false)
	f.Add([]byte("UDPS"), false)
	cfg := scalarCfg()
	cfg.Name = "F"
	cfg.AllowedClients = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	s, err := New(cfg, metrics.NewSet(), discard())
	if err != nil {
		f.Fatal(err)
	}
	if err := s.AllocateMemory(); err != nil {
		f.Fatal(err)
	}
	inside := netip.MustParseAddrPort("127.0.0.1:5000")
	outside := netip.MustParseAddrPort("192.0.2.1:5000")
	total := func() uint64 {
		m := s.m
		return m.acks.Get() + m.refused.Get() + m.strangerDisconnects.Get() + m.controlDropped.Get() + m.bad[badShort].Get() + m.bad[badMagic].Get() +
			m.bad[badType].Get() + m.bad[badFragment].Get() + m.bad[badPayloadLength].Get() + m.bad[badOther].Get() + m.bad[badConnectPayload].Get() + uint64(len(s.control))
	}
	f.Fuzz(func(t *testing.T, b []byte, fromOutside bool) {
		from := inside
		if fromOutside {
			from = outside
		}
		before := total()
		queued := len(s.control)
		s.handleDatagram(b, from)
		after := total()
		// A queued control event may have been drained by nothing here, so
		// the sum grows by exactly one.
		if after != before+1 {
			t.Fatalf("datagram %x: counters moved by %d", b, int64(after)-int64(before))
		}
		if len(s.control) == controlQueue && queued == controlQueue {
			// drain so later inputs can queue again
			for len(s.control) > 0 {
				<-s.control
			}
		}
	})
}
