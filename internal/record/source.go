package record

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	flatclient "github.com/streamerd/streamerd/datasource/flatudp/client"
	flatwire "github.com/streamerd/streamerd/datasource/flatudp/wire"
	rdwire "github.com/streamerd/streamerd/datasource/rd100s/wire"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/cli"
	rdclient "github.com/streamerd/streamerd/internal/rd100slink"
	"github.com/streamerd/streamerd/netthread"
)

// tick is how often a receive loop wakes without data, to end a row group
// that is RowGroupInterval old and notice the end of its context.
const tick = 250 * time.Millisecond

// Source is a stream to record: UDPStreamerSource, RD100SSource or
// FlatUDPSource.
type Source interface {
	// Info names the stream for messages: its kind and address.
	Info() string
	run(ctx context.Context, s *Session) error
}

// Session records one Source with one Recorder, created when the stream's
// layout is known (a UDPStreamer's CONFIG) and given a new layout when it
// changes. Run belongs to one goroutine; Recorder and Stats may be called
// from any.
type Session struct {
	opts Options
	log  *slog.Logger
	rec  atomic.Pointer[Recorder]
}

// NewSession returns a session that records with opts; log (nil: none)
// gets a line for each connection, silence and new file.
func NewSession(opts Options, log *slog.Logger) *Session {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Session{opts: opts, log: log}
}

// Recorder returns the recorder, nil before the stream's layout is known.
func (s *Session) Recorder() *Recorder { return s.rec.Load() }

// Stats returns the recorder's counts.
func (s *Session) Stats() Stats {
	if r := s.rec.Load(); r != nil {
		return r.Stats()
	}
	return Stats{}
}

// Run records src until ctx ends (then it closes the file with its
// footer and returns nil) or the source or the recording fails (it closes
// what it can and returns the error).
func (s *Session) Run(ctx context.Context, src Source) error {
	err := src.run(ctx, s)
	if r := s.rec.Load(); r != nil {
		if cerr := r.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// layout returns the recorder for l: created at the first layout, moved
// to a new file when the layout differs from the file's.
func (s *Session) layout(l *Layout, now time.Time) (*Recorder, error) {
	r := s.rec.Load()
	if r == nil {
		r, err := Create(l, s.opts)
		if err != nil {
			return nil, err
		}
		s.rec.Store(r)
		s.log.Info("recording", "file", r.Path(), "source", l.Source, "signals", len(l.Signals), "columns", len(l.Columns))
		return r, nil
	}
	if r.Layout().same(l) {
		return r, nil
	}
	if err := r.Relayout(l, now); err != nil {
		return nil, err
	}
	s.log.Info("the signal list changed: recording to a new file", "file", r.Path(), "signals", len(l.Signals), "columns", len(l.Columns))
	return r, nil
}

// UDPStreamerSource holds a session with a UDPStreamer server as its
// client. With Codes, each quantised signal's wire codes are recorded
// beside its values.
type UDPStreamerSource struct {
	Server string
	Client client.Options
	Codes  bool
}

// Info names the source.
func (u *UDPStreamerSource) Info() string { return "UDPStreamer " + u.Server }

func (u *UDPStreamerSource) run(ctx context.Context, s *Session) error {
	c, err := client.Dial(u.Server, u.Client)
	if err != nil {
		return err
	}
	defer c.Close()
	// The end of ctx wakes a blocked read (a deadline past); the loop then
	// returns, and the session ends with a DISCONNECT on the open socket.
	stop := context.AfterFunc(ctx, func() { c.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	defer c.Disconnect()
	var cfg *client.Config
	for cfg == nil {
		cfg, err = c.Connect(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, client.ErrConnectTimeout):
			s.log.Warn("no CONFIG yet; trying again", "server", u.Server, "error", err)
		case err != nil:
			return err
		}
	}
	rec, err := u.relayout(s, cfg)
	if err != nil {
		return err
	}
	var upd client.Update
	var armed time.Time
	var stale0, incomplete0 uint64
	// A new CONFIG moves the recording to a new file at the first update
	// decoded with it, and only if its layout differs from the file's: a
	// CONFIG that no update follows (a stray or forged datagram, or a
	// change and its undoing) makes no file.
	changed := false
	for {
		if ctx.Err() != nil {
			return nil
		}
		// A deadline tick ahead, moved on at most every half tick: a
		// deadline that passed re-arms at once.
		now := time.Now()
		if now.After(armed) {
			armed = now.Add(tick / 2)
			c.SetReadDeadline(now.Add(tick))
		}
		err := c.Next(&upd)
		now = time.Now()
		switch {
		case err == nil:
			if changed {
				changed = false
				if rec, err = u.relayout(s, upd.Config()); err != nil {
					return err
				}
			}
			st := c.Stats()
			rec.Row().UDPStreamer(&upd, now, uint32(st.Stale-stale0), uint32(st.Incomplete-incomplete0))
			stale0, incomplete0 = st.Stale, st.Incomplete
			if err := rec.Commit(); err != nil {
				return err
			}
		case errors.Is(err, client.ErrConfigChanged):
			changed = true
		case errors.Is(err, client.ErrSilence):
			s.log.Warn("the stream is silent", "server", u.Server, "error", err)
		default:
			if end, err := readFailed(ctx, rec, err, now); end {
				return err
			}
		}
	}
}

// readFailed is what a receive loop does when its read returns err, not
// one of the source's own: a read deadline ticks rec (which ends a row
// group RowGroupInterval old) and the loop goes on; the end of ctx ends
// the recording with no error; any other error ends it with err.
func readFailed(ctx context.Context, rec *Recorder, err error, now time.Time) (end bool, _ error) {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		if err := rec.Tick(now); err != nil {
			return true, err
		}
		return false, nil
	case ctx.Err() != nil:
		return true, nil
	}
	return true, err
}

// relayout gives the session the layout of cfg.
func (u *UDPStreamerSource) relayout(s *Session, cfg *client.Config) (*Recorder, error) {
	l, err := ForUDPStreamer(u.Server, cfg.Signals, u.Codes)
	if err != nil {
		return nil, err
	}
	return s.layout(l, time.Now())
}

// RD100SSource listens for an RD100S-ENC-UDP stream. Packets are recorded
// in seq order: a duplicate or a late packet is counted in the next row's
// _stale and not recorded; a jump of seq is counted in _lost.
type RD100SSource struct {
	Listen  string
	Monitor rdclient.MonitorConfig
}

// Info names the source.
func (r *RD100SSource) Info() string { return "RD100S " + r.Listen }

func (r *RD100SSource) run(ctx context.Context, s *Session) error {
	conn, err := rdclient.ListenUDP(r.Listen)
	if err != nil {
		return err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	rec, err := s.layout(ForRD100S(conn.LocalAddr().String()), time.Now())
	if err != nil {
		return err
	}
	m := rdclient.NewMonitor(r.Monitor)
	var buf [512]byte // longer than a packet, so a long datagram is seen as long
	var stale uint32
	var prev uint32
	for {
		conn.SetReadDeadline(time.Now().Add(tick))
		n, _, err := conn.ReadFromUDPAddrPort(buf[:])
		now := time.Now()
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				m.Tick(now)
			}
			if end, err := readFailed(ctx, rec, err, now); end {
				return err
			}
			continue
		}
		class := m.Observe(buf[:n], now)
		switch class {
		case rdclient.ClassDiscarded:
			continue
		case rdclient.ClassDuplicate, rdclient.ClassReorder:
			stale++
			continue
		}
		p, err := rdwire.ParsePacket(buf[:n])
		if err != nil {
			continue // Observe accepted it, so it parses
		}
		var lost uint32
		if class == rdclient.ClassGap {
			lost = p.Seq - prev - 1
		}
		prev = p.Seq
		rec.Row().RD100S(&p, now, lost, stale)
		stale = 0
		if err := rec.Commit(); err != nil {
			return err
		}
	}
}

// FlatUDPSource listens for the datagrams of a FlatUDP producer or of
// MARTe2's UDPSender, laid out by a signals string. The format carries no
// counter: loss cannot be seen, and rows have no _lost.
type FlatUDPSource struct {
	Listen  string // local host:port; with Group only the port counts
	Group   string // IPv4 multicast group to join; "" receives unicast
	Iface   string // with Group: local address or interface name to join on
	Signals string
	Order   string // "little" (default) or "big"
}

// Info names the source.
func (f *FlatUDPSource) Info() string { return "FlatUDP " + f.Listen }

func (f *FlatUDPSource) run(ctx context.Context, s *Session) error {
	if f.Order == "" {
		f.Order = "little"
	}
	l, err := ForFlatUDP(f.Listen, f.Signals, f.Order)
	if err != nil {
		return err
	}
	var conn *net.UDPConn
	if f.Group == "" {
		conn, err = cli.ListenUDP(f.Listen)
	} else {
		var port int
		if _, p, serr := net.SplitHostPort(f.Listen); serr != nil {
			err = serr
		} else if port, err = strconv.Atoi(p); err == nil {
			conn, err = flatclient.ListenMulticast(f.Group, f.Iface, port)
		}
	}
	if err != nil {
		return fmt.Errorf("FlatUDP listen on %s: %w", f.Listen, err)
	}
	_, _ = netthread.SetBuffers(conn, 0, 4<<20) // best effort: a smaller buffer only drops more under load
	rc := flatclient.NewReceiver(conn, l.flat)
	defer rc.Close()
	stop := context.AfterFunc(ctx, func() { rc.Close() })
	defer stop()
	rec, err := s.layout(l, time.Now())
	if err != nil {
		return err
	}
	for {
		conn.SetReadDeadline(time.Now().Add(tick))
		b, from, err := rc.Read()
		now := time.Now()
		switch {
		case err == nil:
			if err := rec.Row().FlatUDP(b, now); err != nil {
				continue
			}
			if err := rec.Commit(); err != nil {
				return err
			}
		case errors.Is(err, flatwire.ErrSize):
			s.log.Warn("FlatUDP datagrams of the wrong size: check -signals", "from", from, "bytes", len(b), "want", l.flat.Size)
		default:
			if end, err := readFailed(ctx, rec, err, now); end {
				return err
			}
		}
	}
}
