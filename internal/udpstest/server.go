// Package udpstest runs a minimal UDPStreamer server on a loopback socket for tests of clients (test-only: no non-test file imports it), built only from the wire package's encoders.
//
// The Server answers CONNECT with CONFIG and records DISCONNECT, like the real
// datasource; DATA is sent only when the test asks (SendUpdate, SendDatagram),
// with the counter the test chooses, so loss, duplication, reordering and
// counter wrap can be staged exactly. Everything is safe for concurrent use.
package udpstest

import (
	"encoding/binary"
	"errors"
	"math"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
	udpswire "github.com/streamerd/streamerd/datasource/udpstreamer/wire"
	"github.com/streamerd/streamerd/netthread"
	"github.com/streamerd/streamerd/quant"
)

// Server is a scripted UDPStreamer server on 127.0.0.1.
type Server struct {
	conn *net.UDPConn
	done chan struct{}

	mu           sync.Mutex
	sigs         []udpswire.SignalInfo
	config       []byte
	maxPayload   int
	ignore       int
	connects     int
	disconnects  int
	client       netip.AddrPort
	cfgCounter   uint32
	connected    chan struct{} // closed and replaced at every answered CONNECT
	wire         []byte
	sendLayout   udpswire.Layout
	sendLayoutOK bool
}

// NewServer starts a server for sigs whose datagrams are at most
// maxPayloadSize bytes, header included. tb's cleanup stops it.
func NewServer(tb testing.TB, sigs []udpswire.SignalInfo, maxPayloadSize int) *Server {
	tb.Helper()
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		tb.Fatal(err)
	}
	netthread.SetBuffers(conn, 0, 4<<20)
	conn.SetWriteBuffer(4 << 20)
	s := &Server{conn: conn, done: make(chan struct{}), maxPayload: maxPayloadSize, connected: make(chan struct{})}
	if err := s.SetSignals(sigs); err != nil {
		conn.Close()
		tb.Fatal(err)
	}
	go s.serve()
	tb.Cleanup(func() {
		conn.Close()
		<-s.done
	})
	return s
}

// Addr is the server's address.
func (s *Server) Addr() netip.AddrPort { return s.conn.LocalAddr().(*net.UDPAddr).AddrPort() }

// SetSignals replaces the signal set: later CONNECTs, and SendConfig, use it.
func (s *Server) SetSignals(sigs []udpswire.SignalInfo) error {
	cfg, err := udpswire.AppendConfig(nil, sigs)
	if err != nil {
		return err
	}
	if _, err := udpswire.NewLayout(len(cfg), s.maxPayload); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sigs, s.config = append([]udpswire.SignalInfo(nil), sigs...), cfg
	return nil
}

// IgnoreConnects makes the server drop the next n CONNECTs, as if lost.
func (s *Server) IgnoreConnects(n int) {
	s.mu.Lock()
	s.ignore = n
	s.mu.Unlock()
}

// Connects returns the number of CONNECTs received, ignored ones included.
func (s *Server) Connects() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connects
}

// Disconnects returns the number of DISCONNECTs received from the client.
func (s *Server) Disconnects() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.disconnects
}

// Client returns the session's client, invalid when there is none.
func (s *Server) Client() netip.AddrPort {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client
}

// Connected returns a channel closed at the next answered CONNECT (after its
// CONFIG was sent).
func (s *Server) Connected() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connected
}

// WaitClient waits up to timeout for a session and returns its client.
func (s *Server) WaitClient(timeout time.Duration) (netip.AddrPort, bool) {
	ch := s.Connected()
	if c := s.Client(); c.IsValid() {
		return c, true
	}
	select {
	case <-ch:
		return s.Client(), true
	case <-time.After(timeout):
		return netip.AddrPort{}, false
	}
}

// Displace makes another client take the session, as any address may,
// with one CONNECT from a new loopback socket, and returns that client's
// address once the server answered it. The server then sends DATA there.
func (s *Server) Displace(tb testing.TB) netip.AddrPort {
	tb.Helper()
	other, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { other.Close() })
	connected := s.Connected()
	if _, err := other.WriteToUDPAddrPort(udpswire.AppendHeader(nil, udpswire.Header{Type: udpswire.Connect, TotalFragments: 1}), s.Addr()); err != nil {
		tb.Fatal(err)
	}
	select {
	case <-connected:
	case <-time.After(10 * time.Second):
		tb.Fatal("udpstest: the server did not answer the displacing CONNECT")
	}
	addr := other.LocalAddr().(*net.UDPAddr).AddrPort()
	if c := s.Client(); c != addr {
		tb.Fatalf("udpstest: the session is %v, not the displacing client %v", c, addr)
	}
	return addr
}

func (s *Server) serve() {
	defer close(s.done)
	buf := make([]byte, 1<<16)
	for {
		n, from, err := s.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		h, _, err := udpswire.ParseHeader(buf[:n])
		if err != nil {
			continue
		}
		switch h.Type {
		case udpswire.Connect:
			s.mu.Lock()
			s.connects++
			if s.ignore > 0 {
				s.ignore--
				s.mu.Unlock()
				continue
			}
			s.client = from
			s.sendConfigLocked()
			close(s.connected)
			s.connected = make(chan struct{})
			s.mu.Unlock()
		case udpswire.Disconnect:
			s.mu.Lock()
			if from == s.client {
				s.disconnects++
				s.client = netip.AddrPort{}
			}
			s.mu.Unlock()
		}
	}
}

// SendConfig sends the current CONFIG to the client now, as the answer to a
// CONNECT would be.
func (s *Server) SendConfig() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sendConfigLocked()
}

func (s *Server) sendConfigLocked() error {
	l, err := udpswire.NewLayout(len(s.config), s.maxPayload)
	if err != nil {
		return err
	}
	wire := fill(l, make([]byte, l.WireSize()), udpswire.Config, s.cfgCounter, s.config)
	s.cfgCounter++
	for i := 0; i < l.Fragments; i++ {
		if _, err := s.conn.WriteToUDPAddrPort(l.Datagram(wire, i), s.client); err != nil {
			return err
		}
	}
	return nil
}

// Datagrams returns the datagrams of one DATA update carrying payload, in
// fragment order, each a fresh slice.
func (s *Server) Datagrams(counter uint32, payload []byte) ([][]byte, error) {
	s.mu.Lock()
	mp := s.maxPayload
	s.mu.Unlock()
	l, err := udpswire.NewLayout(len(payload), mp)
	if err != nil {
		return nil, err
	}
	wire := fill(l, make([]byte, l.WireSize()), udpswire.Data, counter, payload)
	var out [][]byte
	for i := 0; i < l.Fragments; i++ {
		out = append(out, l.Datagram(wire, i))
	}
	return out, nil
}

// SendUpdate sends the DATA update counter carrying payload to the client,
// fragments in order. After the first call with a payload size it does not
// allocate.
func (s *Server) SendUpdate(counter uint32, payload []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.sendLayoutOK || s.sendLayout.Payload != len(payload) {
		l, err := udpswire.NewLayout(len(payload), s.maxPayload)
		if err != nil {
			return err
		}
		s.sendLayout, s.sendLayoutOK = l, true
		s.wire = make([]byte, l.WireSize())
	}
	l := s.sendLayout
	fill(l, s.wire, udpswire.Data, counter, payload)
	for i := 0; i < l.Fragments; i++ {
		if _, err := s.conn.WriteToUDPAddrPort(l.Datagram(s.wire, i), s.client); err != nil {
			return err
		}
	}
	return nil
}

// fill writes the datagrams of the update carrying payload into wire, as
// the producer does, and returns wire.
func fill(l udpswire.Layout, wire []byte, typ udpswire.PacketType, counter uint32, payload []byte) []byte {
	l.PutPayload(wire, payload)
	l.PutHeaders(wire, typ, counter)
	return wire
}

// SendDatagram sends b to the client as it is.
func (s *Server) SendDatagram(b []byte) error {
	s.mu.Lock()
	c := s.client
	s.mu.Unlock()
	_, err := s.conn.WriteToUDPAddrPort(b, c)
	return err
}

// Payload builds the DATA payload of sigs: hrt, then for every signal its
// values vals[i] (Elements of them; missing ones are 0) converted to the
// signal's type, or quantised if the signal is. Integer conversion saturates
// at the type's limits and maps NaN to 0.
func Payload(sigs []udpswire.SignalInfo, hrt uint64, vals [][]float64) ([]byte, error) {
	b := make([]byte, udpswire.DataPayloadSize(sigs))
	binary.LittleEndian.PutUint64(b, hrt)
	slots, _ := udpswire.AppendSlots(nil, sigs)
	for i := range sigs {
		s, sl := &sigs[i], slots[i]
		v := make([]float64, sl.Elements)
		if i < len(vals) {
			copy(v, vals[i])
		}
		dst := b[sl.Offset : sl.Offset+sl.Len]
		if s.Quant != quant.None {
			q, err := quant.New(s.Quant, s.RangeMin, s.RangeMax)
			if err != nil {
				return nil, err
			}
			q.EncodeFloat64(dst, v)
			continue
		}
		for k, x := range v {
			putElem(dst[k*sl.ElemSize():], s.Type, x)
		}
	}
	return b, nil
}

func sat(x, lo, hi float64) float64 {
	switch {
	case math.IsNaN(x):
		return 0
	case x < lo:
		return lo
	case x > hi:
		return hi
	}
	return x
}

func putElem(b []byte, t datasource.Type, x float64) {
	le := binary.LittleEndian
	switch t {
	case datasource.Uint8:
		b[0] = uint8(sat(x, 0, math.MaxUint8))
	case datasource.Int8:
		b[0] = byte(int8(sat(x, math.MinInt8, math.MaxInt8)))
	case datasource.Uint16:
		le.PutUint16(b, uint16(sat(x, 0, math.MaxUint16)))
	case datasource.Int16:
		le.PutUint16(b, uint16(int16(sat(x, math.MinInt16, math.MaxInt16))))
	case datasource.Uint32:
		le.PutUint32(b, uint32(sat(x, 0, math.MaxUint32)))
	case datasource.Int32:
		le.PutUint32(b, uint32(int32(sat(x, math.MinInt32, math.MaxInt32))))
	case datasource.Uint64:
		if x >= 0x1p64 {
			le.PutUint64(b, math.MaxUint64)
		} else {
			le.PutUint64(b, uint64(sat(x, 0, 0x1p64)))
		}
	case datasource.Int64:
		if x >= 0x1p63 {
			le.PutUint64(b, math.MaxInt64)
		} else {
			le.PutUint64(b, uint64(int64(sat(x, -0x1p63, 0x1p63))))
		}
	case datasource.Float32:
		le.PutUint32(b, math.Float32bits(float32(x)))
	case datasource.Float64:
		le.PutUint64(b, math.Float64bits(x))
	}
}
