// Package client receives a UDPStreamer server's stream: it connects, reassembles CONFIG and DATA, orders updates by counter and decodes every signal to values and per-sample times.
//
// Usage:
//
//  1. Dial the server's address; it opens one UDP socket.
//  2. Connect: it sends CONNECT (again every 250 ms) until a complete
//     CONFIG arrives and returns the signal list. A CONFIG beyond the
//     client's limits (4096 signals, MaxDataSize) ends Connect at once with
//     an error saying by how much: the server would send the same again.
//  3. Call Next in a loop with one reused Update; read signals with
//     Update.Float64s (dequantised), Update.Raw (wire bytes, exact
//     values: datasource.Type.Raw reads them), Update.Times (per-element
//     times in seconds),
//     or one element with Float64At and TimeAt.
//     Next returns ErrConfigChanged once when the server sends a different
//     CONFIG; the new one is Client.Config.
//  4. Disconnect, then Close. Stats may be read from any goroutine meanwhile.
//
// What Next reports besides the updates (docs/udpstreamer.md, "The Go
// client", states the rules):
//
//   - Loss: Update.Lost, the DATA counter values that never arrived.
//   - Skipped cycles: Update.Skipped, the server's cycles with no update at
//     all (replaced on the server before sending, or missed by its RT
//     thread), which the counter cannot show. The client learns the
//     server's period from the updates' hrtTimestamps and counts the whole
//     periods missing between two updates beyond the lost ones.
//   - Silence: when no update comes for Options.Silence (by default 5 of
//     the learnt periods, at least 1 s), Next returns an error matching
//     ErrSilence, once; the first update after it carries the pause in
//     Update.Silence. With Options.Reconnect the client sends CONNECT
//     again meanwhile, backing off up to 30 s: the server
//     may have restarted, or given the session to another client.
//   - Resynchronisation: a counter implausibly far from the sequence is
//     dropped (Stats.Implausible); if the next update continues it, the
//     sequence restarted without a CONFIG and the client follows it
//     (Update.Resync, Stats.Resyncs).
//
// Performance: Next does not allocate once the Update's buffers have been
// used once (per signal, for the accessors called), and takes a lock only
// to move the socket's read deadline for silence detection, about once per
// silence timeout rather than per update. Datagrams are read with
// ReadFromUDPAddrPort into one buffer and reassembled in place.
package client

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
	"github.com/streamerd/streamerd/netthread"
)

// Defaults for Options' zero fields.
const (
	defaultLocalAddr      = ":0"
	defaultConnectTimeout = 2 * time.Second
	defaultResendInterval = 250 * time.Millisecond
	defaultReadBuffer     = 8 << 20
	defaultMaxInFlight    = 4
	defaultMaxDataSize    = 16 << 20
	defaultMaxConfigSize  = 4 + 4096*136 // 4096 signals (a test checks frame.ConfigSize(4096))
)

// Options configures Dial. The zero value gives the defaults.
type Options struct {
	LocalAddr      string        // local UDP address to bind; "" means ":0" (any address, ephemeral port)
	ConnectTimeout time.Duration // how long Connect waits for CONFIG; 0 means 2 s
	ReadBuffer     int           // socket receive buffer, sized by netthread.SetBuffers (SO_RCVBUFFORCE when privileged, else SO_RCVBUF capped by net.core.rmem_max); 0 means 8 MiB, < 0 leaves the system's
	MaxInFlight    int           // DATA updates reassembled at once; 0 means 4
	MaxDataSize    int           // largest DATA payload a CONFIG may imply; 0 means 16 MiB (the reassembler allocates MaxInFlight of them)

	// Silence is how long Next waits for an update before it reports a
	// silence (an error matching ErrSilence, once per silence). 0 means the
	// default: 5 of the server's periods as learnt from the updates'
	// hrtTimestamps, and at least 1 s. Negative turns detection off.
	Silence time.Duration
	// Reconnect makes a silent Next send CONNECT again, at once and then
	// with a back-off doubling from the silence timeout to 30 s, until an
	// update comes: the server restarted,
	// or another client took the session.
	Reconnect bool

	// Bounds the tests move: Connect resends CONNECT every
	// resendInterval (250 ms when 0); a CONFIG payload is at most
	// maxConfigSize bytes (557060, 4096 signals, when 0).
	resendInterval time.Duration
	maxConfigSize  int
}

// Errors.
var (
	// ErrConnectTimeout is wrapped by Connect's error when no CONFIG came in time.
	ErrConnectTimeout = errors.New("udpstreamer/client: no CONFIG from the server")
	// errNotDialed is returned by the calls on a nil or zero Client (such
	// as the nil a failed Dial returns, its error ignored).
	errNotDialed = errors.New("udpstreamer/client: nil or zero Client (make one with Dial, and check its error)")
	// errForeignConfig is returned by Update.Decode for a Config that
	// ParseConfig (or Connect) did not make.
	errForeignConfig = errors.New("udpstreamer/client: Decode: a Config ParseConfig did not make (nil or built by hand)")
	// errNotConnected is returned by Next before a successful Connect.
	errNotConnected = errors.New("udpstreamer/client: not connected")
	// ErrConfigChanged is returned by Next, without an update, when the server
	// sent a CONFIG different from the session's: Config returns the new one and
	// the next Next continues with it. Updates filled earlier keep their Config.
	ErrConfigChanged = errors.New("udpstreamer/client: server sent a new CONFIG")
	// ErrUnsupportedConfig is wrapped by the error of Connect, Next or
	// ParseConfig when the client cannot take a CONFIG: it breaks a rule of
	// the protocol (docs/udpstreamer.md, "CONFIG"), or it exceeds the
	// client's limits (4096 signals, as soon as one fragment shows it, or
	// Options.MaxDataSize), and the error says by how much. Next returns
	// it only while a silence lasts, when the CONFIG answers its CONNECT
	// (Options.Reconnect); in a session whose updates flow such a CONFIG
	// was not asked for, and is counted (Stats.BadConfigs) and dropped.
	ErrUnsupportedConfig = errors.New("udpstreamer/client: CONFIG the client cannot take")
)

// recvBufSize holds the largest UDP payload.
const recvBufSize = 1 << 16

// Client is one UDP socket talking to one UDPStreamer server.
//
// Connect and Next (and the Updates they fill) belong to one goroutine.
// Disconnect, Close, Stats, Config and SetReadDeadline may
// be called from any goroutine; Close unblocks a pending Next or Connect.
type Client struct {
	conn   *net.UDPConn
	server netip.AddrPort // unmapped
	opts   Options
	buf    []byte

	cfgR     *frame.Reassembler
	dataR    *frame.Reassembler
	dataMax  int    // dataR's MaxPayload
	evicted0 uint64 // evictions of replaced DATA reassemblers
	gate     frame.SequenceGate
	cfg      atomic.Pointer[Config]
	fresh    bool // the next accepted update starts a session
	cycles   cycleClock
	sil      silence

	dmu          sync.Mutex // guards userDeadline and the socket's deadline with sil.armedWant
	userDeadline time.Time  // set by SetReadDeadline

	epoch time.Time // Dial's time, the origin of st.lastUpdate
	st    counters
}

// Dial resolves server ("host:port"), binds a UDP socket to opts.LocalAddr of
// the same address family and sizes its receive buffer. It sends nothing:
// call Connect.
func Dial(server string, opts Options) (*Client, error) {
	if opts.LocalAddr == "" {
		opts.LocalAddr = defaultLocalAddr
	}
	opts.ConnectTimeout = positive(opts.ConnectTimeout, defaultConnectTimeout)
	opts.resendInterval = positive(opts.resendInterval, defaultResendInterval)
	if opts.ReadBuffer == 0 {
		opts.ReadBuffer = defaultReadBuffer
	}
	opts.MaxInFlight = positive(opts.MaxInFlight, defaultMaxInFlight)
	opts.maxConfigSize = positive(opts.maxConfigSize, defaultMaxConfigSize)
	opts.MaxDataSize = positive(opts.MaxDataSize, defaultMaxDataSize)
	sa, err := net.ResolveUDPAddr("udp", server)
	if err != nil {
		return nil, fmt.Errorf("udpstreamer/client: server %q: %w", server, err)
	}
	srv := sa.AddrPort()
	srv = netip.AddrPortFrom(srv.Addr().Unmap(), srv.Port())
	if !srv.Addr().IsValid() || srv.Port() == 0 {
		return nil, fmt.Errorf("udpstreamer/client: server %q: need an address and a port", server)
	}
	network := "udp6"
	if srv.Addr().Is4() {
		network = "udp4"
	}
	la, err := net.ResolveUDPAddr(network, opts.LocalAddr)
	if err != nil {
		return nil, fmt.Errorf("udpstreamer/client: local address %q: %w", opts.LocalAddr, err)
	}
	cfgR, err := frame.NewReassembler(frame.ReassemblerConfig{
		Type: frame.Config, MaxPayload: opts.maxConfigSize, InFlight: 2,
	})
	if err != nil {
		return nil, fmt.Errorf("udpstreamer/client: %w", err)
	}
	conn, err := net.ListenUDP(network, la)
	if err != nil {
		return nil, fmt.Errorf("udpstreamer/client: %w", err)
	}
	if opts.ReadBuffer > 0 {
		if _, err := netthread.SetBuffers(conn, 0, opts.ReadBuffer); err != nil {
			conn.Close()
			return nil, fmt.Errorf("udpstreamer/client: %w", err)
		}
	}
	return &Client{conn: conn, server: srv, opts: opts, buf: make([]byte, recvBufSize), cfgR: cfgR, epoch: time.Now()}, nil
}

// localAddr returns the socket's bound address.
func (c *Client) localAddr() netip.AddrPort {
	return c.conn.LocalAddr().(*net.UDPAddr).AddrPort()
}

// dialed reports whether c came from Dial: not a nil or zero Client.
func (c *Client) dialed() bool { return c != nil && c.conn != nil }

// Config returns the current session's Config, nil before Connect succeeds.
func (c *Client) Config() *Config {
	if !c.dialed() {
		return nil
	}
	return c.cfg.Load()
}

// Stats returns the counters since Dial (zero for a nil or zero Client).
func (c *Client) Stats() Stats {
	if !c.dialed() {
		return Stats{}
	}
	return c.st.snapshot(c.epoch)
}

// SetReadDeadline bounds Next: a Next still waiting at t returns an error
// wrapping os.ErrDeadlineExceeded. The zero time removes the bound. Connect
// sets its own deadlines and leaves none behind.
func (c *Client) SetReadDeadline(t time.Time) error {
	if !c.dialed() {
		return errNotDialed
	}
	c.dmu.Lock()
	defer c.dmu.Unlock()
	c.userDeadline = t
	return c.conn.SetReadDeadline(earliest(t, c.sil.armedWant))
}

// Close closes the socket; a blocked Next or Connect returns net.ErrClosed.
// It sends nothing: call Disconnect first to end the session politely. A
// second Close does nothing and returns nil.
func (c *Client) Close() error {
	if !c.dialed() {
		return errNotDialed
	}
	if err := c.conn.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

// Disconnect sends DISCONNECT, which ends the session on the server. DATA
// already on its way may still be returned by Next; Connect starts a new session.
func (c *Client) Disconnect() error {
	if !c.dialed() {
		return errNotDialed
	}
	return c.send(frame.Disconnect)
}

func (c *Client) send(t frame.PacketType) error {
	var b [frame.HeaderSize]byte
	frame.PutHeader(b[:], frame.Header{Type: t, TotalFragments: 1})
	_, err := c.conn.WriteToUDPAddrPort(b[:], c.server)
	return err
}

// Connect starts a session: it sends CONNECT, resending it every
// 250 ms, until a complete CONFIG arrives from the server, then
// resets the sequence gate and the reassemblers (the server restarts its DATA
// counter on every CONNECT) and returns the parsed Config. It gives up after
// ConnectTimeout with an error wrapping ErrConnectTimeout, or when ctx ends.
// A CONFIG that breaks a rule of the protocol or exceeds the limits
// (ErrUnsupportedConfig) ends Connect with that error.
// DATA arriving before the CONFIG is ignored. Connect may be
// called again to reconnect; it clears any read deadline.
func (c *Client) Connect(ctx context.Context) (*Config, error) {
	if !c.dialed() {
		return nil, errNotDialed
	}
	if ctx == nil {
		return nil, errors.New("udpstreamer/client: Connect: nil context (use context.Background())")
	}
	deadline := time.Now().Add(c.opts.ConnectTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	// Wake a blocked read when ctx ends; the loop then sees ctx.Err().
	stop := context.AfterFunc(ctx, func() { c.conn.SetReadDeadline(time.Unix(1, 0)) })
	defer func() {
		stop()
		c.restartSilence(time.Now())
	}()

	c.cfgR.Reset()
	c.resetSession()
	sent := 0
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		now := time.Now()
		if !now.Before(deadline) {
			return nil, fmt.Errorf("%w %v after %d CONNECTs in %v", ErrConnectTimeout, c.server, sent, c.opts.ConnectTimeout)
		}
		if err := c.send(frame.Connect); err != nil {
			return nil, fmt.Errorf("udpstreamer/client: CONNECT: %w", err)
		}
		sent++
		wait := now.Add(c.opts.resendInterval)
		if wait.After(deadline) {
			wait = deadline
		}
		c.conn.SetReadDeadline(wait)
		for {
			h, frag, err := c.read()
			if err != nil {
				if errors.Is(err, os.ErrDeadlineExceeded) {
					break // resend, or time out
				}
				return nil, err
			}
			switch h.Type {
			case frame.Config:
				payload, err := c.addConfig(h, frag)
				if err != nil {
					return nil, err
				}
				if payload == nil {
					continue
				}
				return c.adopt(payload)
			case frame.Data:
				c.st.early.Add(1)
			}
		}
	}
}

// read waits for the next well-formed datagram from the server and returns its
// header and payload, counting and skipping everything else.
func (c *Client) read() (frame.Header, []byte, error) {
	for {
		n, from, err := c.conn.ReadFromUDPAddrPort(c.buf)
		if err != nil {
			return frame.Header{}, nil, err
		}
		if from.Port() != c.server.Port() || from.Addr().Unmap() != c.server.Addr() {
			c.st.foreign.Add(1)
			continue
		}
		c.st.datagrams.Add(1)
		c.st.bytes.Add(uint64(n))
		b := c.buf[:n]
		h, hn, err := frame.ParseHeader(b)
		if err != nil {
			if e, ok := err.(frame.HeaderError); ok && int(e) < len(c.st.badHeader) {
				c.st.badHeader[e].Add(1)
			}
			continue
		}
		if h.Type != frame.Data && h.Type != frame.Config {
			c.st.unexpected.Add(1)
			continue
		}
		return h, b[hn:], nil
	}
}

// addConfig passes a CONFIG fragment to its reassembler and returns the
// CONFIG payload it completes, if any. A fragment that shows the CONFIG to
// exceed the client's limit refuses the CONFIG at once (ErrUnsupportedConfig):
// the server would send the same one again at every CONNECT.
func (c *Client) addConfig(h frame.Header, frag []byte) ([]byte, error) {
	payload, _, err := c.cfgR.Add(h, frag)
	switch {
	case err == frame.DropTooLarge:
		c.st.countDrop(err)
		c.st.badConfigs.Add(1)
		return nil, c.configTooLarge(h, frag)
	case err != nil:
		c.st.countDrop(err)
		return nil, nil
	case payload != nil:
		c.st.configs.Add(1)
	}
	return payload, nil
}

// configTooLarge says what a fragment tells of a CONFIG beyond
// the client's limit: its signal count when it is the first fragment, else a
// lower bound of its size.
func (c *Client) configTooLarge(h frame.Header, frag []byte) error {
	// A CONFIG is a uint32 count, then one fixed-size record per signal.
	count, record := frame.ConfigSize(0), frame.ConfigSize(1)-frame.ConfigSize(0)
	limit := fmt.Sprintf("the client takes at most %d bytes (%d signals)",
		c.opts.maxConfigSize, (c.opts.maxConfigSize-count)/record)
	size := uint64(len(frag))
	if h.FragmentIdx+1 < h.TotalFragments {
		size = uint64(h.TotalFragments-1)*uint64(len(frag)) + 1
	}
	what := fmt.Sprintf("at least %d bytes in %d fragments", size, h.TotalFragments)
	if h.FragmentIdx == 0 && len(frag) >= count {
		n := binary.LittleEndian.Uint32(frag)
		what = fmt.Sprintf("%d signals, %d bytes", n, uint64(count)+uint64(n)*uint64(record))
	}
	return fmt.Errorf("udpstreamer/client: server %v: %w: its CONFIG has %s; %s", c.server, ErrUnsupportedConfig, what, limit)
}

// adopt parses and plans a CONFIG payload within the client's limits and
// installs it.
func (c *Client) adopt(payload []byte) (*Config, error) {
	cfg, err := newConfig(payload)
	if err == nil && cfg.payloadSize > c.opts.MaxDataSize {
		err = fmt.Errorf("%w: DATA payload of %d bytes exceeds MaxDataSize %d", ErrUnsupportedConfig, cfg.payloadSize, c.opts.MaxDataSize)
	}
	if err != nil {
		c.st.badConfigs.Add(1)
		return nil, fmt.Errorf("udpstreamer/client: server %v: %w", c.server, err)
	}
	if err := c.install(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// install makes cfg the session's Config and starts a new session.
func (c *Client) install(cfg *Config) error {
	if c.dataR == nil || c.dataMax < cfg.payloadSize {
		r, err := frame.NewReassembler(frame.ReassemblerConfig{
			Type: frame.Data, MaxPayload: cfg.payloadSize, InFlight: c.opts.MaxInFlight,
		})
		if err != nil {
			return fmt.Errorf("udpstreamer/client: %w", err)
		}
		if c.dataR != nil {
			c.evicted0 += c.dataR.Stats().Evicted
		}
		c.dataR, c.dataMax = r, cfg.payloadSize
	}
	if err := c.dataR.SetExpectedPayload(cfg.payloadSize); err != nil {
		return fmt.Errorf("udpstreamer/client: %w", err)
	}
	c.cfg.Store(cfg)
	c.cycles.reset()
	c.resetSession()
	return nil
}

// resetSession forgets DATA counters: the server restarts them at every CONNECT.
func (c *Client) resetSession() {
	if c.dataR != nil {
		c.dataR.Reset()
	}
	c.gate.Reset()
	c.cycles.reset()
	c.fresh = true
}

// Next blocks until the next complete DATA update that advances the counter
// and fills u with it, reusing u's buffers. Stale and duplicated updates are
// dropped (Stats.Stale, Stats.Dropped); u.Lost says how many the counter
// skipped and u.Skipped how many cycles the hrtTimestamps say the server
// skipped besides. A CONFIG that repeats the session's (the answer to a
// resent CONNECT) restarts the counter sequence and marks the next update's
// SessionStart; a different CONFIG makes Next return ErrConfigChanged, and
// one Connect would refuse makes Next return that error (the session's DATA
// can no longer be decoded; Connect again or give up).
//
// When no update comes for the silence timeout (Options.Silence), Next
// returns a *SilenceError, once per silence; with Options.Reconnect it has
// sent CONNECT and keeps sending it, backing off, while later calls wait.
// The first update after the silence carries its length in u.Silence.
// Other errors come from the socket: a deadline set with SetReadDeadline
// (os.ErrDeadlineExceeded) or Close (net.ErrClosed). Next before a
// successful Connect is an error.
func (c *Client) Next(u *Update) error {
	if u == nil {
		return errors.New("udpstreamer/client: Next: nil Update")
	}
	if !c.dialed() {
		return errNotDialed
	}
	cfg := c.cfg.Load()
	if cfg == nil || c.dataR == nil {
		return errNotConnected
	}
	c.waiting(time.Now())
	for {
		c.arm()
		h, frag, err := c.read()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			if err := c.deadline(err); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if h.Type == frame.Config {
			if changed, err := c.config(h, frag); err != nil {
				if errors.Is(err, ErrUnsupportedConfig) && !c.sil.silent {
					// Counted in BadConfigs; not the answer to a CONNECT
					// of this Next (it sends one only while silent), so a
					// stray or forged datagram: the session goes on.
					continue
				}
				return err
			} else if changed {
				return ErrConfigChanged
			}
			cfg = c.cfg.Load()
			continue
		}
		payload, counter := c.data(h, frag)
		if payload == nil {
			continue
		}
		lost, verdict := c.gate.Step(counter)
		switch verdict {
		case frame.Stale:
			c.st.stale.Add(1)
			continue
		case frame.Held:
			c.st.implausible.Add(1)
			continue
		case frame.Resync:
			c.st.resyncs.Add(1)
		}
		if err := u.fill(cfg, counter, lost, payload); err != nil {
			// The reassembler enforces the size; count it as inconsistent anyway.
			c.st.dropped[frame.DropInconsistent].Add(1)
			continue
		}
		c.deliver(u, verdict)
		return nil
	}
}

// AbandonPartial gives up the updates of which some fragments came and
// not all, counting each in Stats().Incomplete: call it when no more
// Next will come (a program that exits), from the goroutine that called
// Next. Next, if called again, starts without them.
func (c *Client) AbandonPartial() {
	if !c.dialed() || c.dataR == nil {
		return
	}
	c.evicted0 += uint64(c.dataR.Pending())
	c.dataR.Reset()
	c.st.incomplete.Store(c.evicted0 + c.dataR.Stats().Evicted)
}

// data passes a DATA fragment to the reassembler and returns the update it
// completes, if any.
func (c *Client) data(h frame.Header, frag []byte) (payload []byte, counter uint32) {
	payload, counter, err := c.dataR.Add(h, frag)
	if n := c.evicted0 + c.dataR.Stats().Evicted; n != c.st.incomplete.Load() {
		c.st.incomplete.Store(n)
	}
	if err != nil {
		c.st.countDrop(err)
		return nil, 0
	}
	return payload, counter
}

// deliver completes the session fields of an accepted update u and counts it.
func (c *Client) deliver(u *Update, verdict frame.Verdict) {
	u.SessionStart, c.fresh = c.fresh, false
	u.Resync = verdict == frame.Resync
	if u.Resync {
		c.cycles.reset()
	}
	u.Skipped = c.cycles.step(u.HRT, u.Lost)
	u.Silence = c.arrived(time.Now())
	c.st.updates.Add(1)
	c.st.lost.Add(uint64(u.Lost))
	c.st.skipped.Add(uint64(u.Skipped))
	c.st.period.Store(int64(c.cycles.known()))
}

// config handles a CONFIG fragment during a session; changed reports a new
// Config installed.
func (c *Client) config(h frame.Header, frag []byte) (changed bool, err error) {
	payload, err := c.addConfig(h, frag)
	if payload == nil || err != nil {
		return false, err
	}
	if cur := c.cfg.Load(); bytes.Equal(cur.raw, payload) {
		c.resetSession()
		return false, nil
	}
	if _, err := c.adopt(payload); err != nil {
		return false, err
	}
	return true, nil
}

// positive returns v if it is above zero, else def: the value of an option
// whose zero (or a negative value) means its default.
func positive[T ~int | ~int64](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}
