// Package udpstest runs a minimal UDPStreamer server on a loopback socket for tests of clients (test-only: no non-test file imports it), framing its datagrams itself from docs/udpstreamer.md.
//
// The Server answers CONNECT with CONFIG and records DISCONNECT, like the real
// datasource; DATA is sent only when the test asks (SendUpdate, SendDatagram),
// with the counter the test chooses, so loss, duplication, reordering and
// counter wrap can be staged exactly. Its datagrams are framed here, byte
// by byte after docs/udpstreamer.md, not with the producer's code: a
// client tested against it is checked against the protocol as written.
// Only the CONFIG message comes from the producer (udpstreamer.AppendConfig).
// Everything is safe for concurrent use.
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
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/netthread"
	"github.com/streamerd/streamerd/quant"
)

// Server is a scripted UDPStreamer server on 127.0.0.1.
type Server struct {
	conn *net.UDPConn
	done chan struct{}

	mu          sync.Mutex
	sigs        []datasource.Signal
	config      []byte
	maxPayload  int
	ignore      int
	connects    int
	disconnects int
	client      netip.AddrPort
	cfgCounter  uint32
	connected   chan struct{} // closed and replaced at every answered CONNECT
	wire        [][]byte      // the datagrams of the last SendUpdate, reused
}

// NewServer starts a server for sigs whose datagrams are at most
// maxPayloadSize bytes, header included. tb's cleanup stops it.
func NewServer(tb testing.TB, sigs []datasource.Signal, maxPayloadSize int) *Server {
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
func (s *Server) SetSignals(sigs []datasource.Signal) error {
	cfg, err := udpstreamer.AppendConfig(nil, sigs)
	if err != nil {
		return err
	}
	if _, err := appendDatagrams(nil, typeConfig, 0, cfg, s.maxPayload); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sigs, s.config = append([]datasource.Signal(nil), sigs...), cfg
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
	if _, err := other.WriteToUDPAddrPort(ConnectDatagram(), s.Addr()); err != nil {
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
		if n < headerSize || binary.LittleEndian.Uint32(buf) != magic {
			continue
		}
		switch buf[offType] {
		case typeConnect:
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
		case typeDisconnect:
			s.mu.Lock()
			if from == s.client {
				s.disconnects++
				s.client = netip.AddrPort{}
			}
			s.mu.Unlock()
		}
	}
}

// Restart makes the server behave as a new one on the same address: no
// session, and its CONFIG counter back at 0.
func (s *Server) Restart() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.client, s.cfgCounter = netip.AddrPort{}, 0
}

// SendConfig sends the current CONFIG to the client now, as the answer to a
// CONNECT would be.
func (s *Server) SendConfig() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sendConfigLocked()
}

func (s *Server) sendConfigLocked() error {
	dgs, err := appendDatagrams(nil, typeConfig, s.cfgCounter, s.config, s.maxPayload)
	if err != nil {
		return err
	}
	s.cfgCounter++
	return s.sendLocked(dgs)
}

// sendLocked sends dgs to the session's client, in order; with no session
// (the client disconnected) it sends nothing, as a UDPStreamer does.
func (s *Server) sendLocked(dgs [][]byte) error {
	if !s.client.IsValid() {
		return nil
	}
	for _, d := range dgs {
		if _, err := s.conn.WriteToUDPAddrPort(d, s.client); err != nil {
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
	return appendDatagrams(nil, typeData, counter, payload, mp)
}

// SendUpdate sends the DATA update counter carrying payload to the client,
// fragments in order; with no session it sends nothing. After the first call with a payload size it does not
// allocate.
func (s *Server) SendUpdate(counter uint32, payload []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	dgs, err := appendDatagrams(s.wire[:0], typeData, counter, payload, s.maxPayload)
	if err != nil {
		return err
	}
	s.wire = dgs
	return s.sendLocked(dgs)
}

// The datagram header of docs/udpstreamer.md: '<IBIHHI', magic "UDPS",
// packet type, counter, fragment index, total fragments, payload bytes in
// this datagram.
const (
	headerSize = 17
	magic      = 0x53504455
	offType    = 4

	typeData       = 0
	typeConfig     = 1
	typeConnect    = 3
	typeDisconnect = 4

	maxFragments = 0xFFFF
)

// ConfigFragment returns fragment idx of total of a CONFIG carrying part:
// a datagram to forge or break a CONFIG with.
func ConfigFragment(counter uint32, idx, total uint16, part []byte) []byte {
	return append(header(nil, typeConfig, counter, idx, total, len(part)), part...)
}

// ConnectDatagram returns the CONNECT datagram a client sends.
func ConnectDatagram() []byte { return header(nil, typeConnect, 0, 0, 1, 0) }

// header appends the header of one datagram to b; it allocates only to
// grow b.
func header(b []byte, typ byte, counter uint32, idx, total uint16, n int) []byte {
	b = binary.LittleEndian.AppendUint32(b, magic) // offset 0
	b = append(b, typ)                             // offType
	b = binary.LittleEndian.AppendUint32(b, counter)
	b = binary.LittleEndian.AppendUint16(b, idx)   // offFragmentIdx
	b = binary.LittleEndian.AppendUint16(b, total) // offTotal
	return binary.LittleEndian.AppendUint32(b, uint32(n))
}

// appendDatagrams cuts payload into the datagrams of one message of type
// typ, at most maxPayloadSize bytes each with their header, and appends
// them to dgs, reusing the slices dgs already holds beyond its length.
func appendDatagrams(dgs [][]byte, typ byte, counter uint32, payload []byte, maxPayloadSize int) ([][]byte, error) {
	chunk := maxPayloadSize - headerSize
	if chunk < 1 || maxPayloadSize > 65507 {
		return nil, errors.New("udpstest: datagram size outside 18..65507")
	}
	total := max(1, (len(payload)+chunk-1)/chunk)
	if total > maxFragments {
		return nil, errors.New("udpstest: more than 65535 fragments")
	}
	for i := range total {
		part := payload[min(i*chunk, len(payload)):min((i+1)*chunk, len(payload))]
		var d []byte
		if len(dgs) < cap(dgs) {
			d = dgs[:len(dgs)+1][len(dgs)][:0]
		}
		d = header(d, typ, counter, uint16(i), uint16(total), len(part))
		dgs = append(dgs, append(d, part...))
	}
	return dgs, nil
}

// SendDatagram sends b to the client as it is (nothing with no session).
func (s *Server) SendDatagram(b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sendLocked([][]byte{b})
}

// Payload builds the DATA payload of sigs: hrt, then for every signal its
// values vals[i] (Elements of them; missing ones are 0) converted to the
// signal's type, or quantised if the signal is. Integer conversion saturates
// at the type's limits and maps NaN to 0.
func Payload(sigs []datasource.Signal, hrt uint64, vals [][]float64) ([]byte, error) {
	// The payload: the 8-byte hrtTimestamp, then every signal's elements
	// back to back, in its wire type.
	size := hrtSize
	for i := range sigs {
		size += wireBytes(&sigs[i])
	}
	b := make([]byte, size)
	binary.LittleEndian.PutUint64(b, hrt)
	off := hrtSize
	for i := range sigs {
		s := &sigs[i]
		v := make([]float64, s.Elements())
		if i < len(vals) {
			copy(v, vals[i])
		}
		dst := b[off : off+wireBytes(s)]
		off += wireBytes(s)
		if s.QuantizedType != quant.None {
			q, err := quant.New(s.QuantizedType, s.RangeMin, s.RangeMax)
			if err != nil {
				return nil, err
			}
			q.EncodeFloat64(dst, v)
			continue
		}
		for k, x := range v {
			putElem(dst[k*s.Type.Size():], s.Type, x)
		}
	}
	return b, nil
}

// hrtSize is the size of the hrtTimestamp that starts every DATA payload.
const hrtSize = 8

// wireBytes is the size of signal s in a DATA payload: its elements in
// their quantised type when quantised, else in their own.
func wireBytes(s *datasource.Signal) int {
	if s.QuantizedType != quant.None {
		return s.Elements() * s.QuantizedType.Size()
	}
	return s.Elements() * s.Type.Size()
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
