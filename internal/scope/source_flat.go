package scope

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/streamerd/streamerd/datasource"
	flatclient "github.com/streamerd/streamerd/datasource/flatudp/client"
	"github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/internal/cli"
	"github.com/streamerd/streamerd/netthread"
)

// FlatUDP is a source that listens for the header-less datagrams of a
// FlatUDP producer or of MARTe2's UDPSender, laid out by a signals string.
//
// The format carries no time and no counter, so times are counted: each
// datagram is 1/Rate after the previous one, a waveform row's samples are
// spread over that period, and after a silence the clock jumps by the
// time that really passed (a break in every trace). Loss cannot be seen.
type FlatUDP struct {
	Listen  string  // local host:port to receive on; with Group only the port counts
	Group   string  // IPv4 multicast group to join; "" receives unicast
	Iface   string  // with Group: local address or interface name to join on; "" the kernel's choice
	Signals string  // "Name:type[count],…", a trailing w for a waveform row
	Rate    float64 // datagrams per second the sender emits
	Order   string  // byte order, "little" (the default when empty) or "big"

	r        atomic.Pointer[flatclient.Receiver]
	silences atomic.Uint64
	addr     string // the address bound, for messages
}

// statusEvery is how often a listening source looks at its counters to
// update its status.
const statusEvery = 250 * time.Millisecond

// wrongSizeHold is how long a warning about datagrams of a wrong size
// stays after the last one.
const wrongSizeHold = 5 * time.Second

// Info names the source.
func (f *FlatUDP) Info() Info { return Info{Kind: "FlatUDP", Address: f.Listen} }

// Counters returns the receiver's counts.
func (f *FlatUDP) Counters() Counters {
	c := Counters{Silences: f.silences.Load()}
	if r := f.r.Load(); r != nil {
		st := r.Stats()
		c.Updates, c.Bytes, c.Bad = st.Datagrams-st.WrongSize, st.Bytes, st.WrongSize
		c.Extra = []Count{{"datagrams", st.Datagrams}, {"wrong sizes seen", uint64(st.WrongSizes)}}
	}
	return c
}

// flatOpen is an open FlatUDP source: its receiver, the receiver's socket
// and layout, the datagrams' byte order.
type flatOpen struct {
	r     *flatclient.Receiver
	conn  *net.UDPConn
	l     *wire.Layout
	order wire.ByteOrder
}

// open checks the source's settings and opens its receiver.
func (f *FlatUDP) open() (flatOpen, error) {
	l, err := wire.ParseLayout(f.Signals)
	if err != nil {
		return flatOpen{}, fmt.Errorf("signals: %w", err)
	}
	order, err := cli.ParseByteOrder(f.Order)
	if err != nil {
		return flatOpen{}, err
	}
	if !(f.Rate > 0) || math.IsInf(f.Rate, 0) {
		return flatOpen{}, fmt.Errorf("rate %v: want the sender's datagrams per second, a positive number", f.Rate)
	}
	conn, err := f.listen()
	if err != nil {
		return flatOpen{}, fmt.Errorf("FlatUDP listen on %s: %w", f.Listen, err)
	}
	_, _ = netthread.SetBuffers(conn, 0, 4<<20) // best effort: a smaller buffer only drops more under load
	return flatOpen{flatclient.NewReceiver(conn, l), conn, l, order}, nil
}

func (f *FlatUDP) listen() (*net.UDPConn, error) {
	if f.Group == "" {
		return cli.ListenUDP(f.Listen)
	}
	_, p, err := net.SplitHostPort(f.Listen)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("bad port %q", p)
	}
	return flatclient.ListenMulticast(f.Group, f.Iface, int(port))
}

// Run listens until ctx ends.
func (f *FlatUDP) Run(ctx context.Context, h *Hub) error {
	o, err := f.open()
	if err != nil {
		h.SetStatus(StateError, err.Error())
		return err
	}
	r, order, l := o.r, o.order, o.l
	f.addr = o.conn.LocalAddr().String()
	f.r.Store(r)
	defer r.Close()
	stop := context.AfterFunc(ctx, func() { r.Close() })
	defer stop()
	h.Configure(Info{Kind: "FlatUDP", Address: f.addr}, flatSignals(l, f.Rate))
	h.SetStatus(StateWaiting, "listening for FlatUDP datagrams of "+strconv.Itoa(l.Size)+" bytes on "+f.addr)
	u := newFlatUpdate(l, f.Rate)
	fs := flatState{start: time.Now()}
	fs.clock.period = 1 / f.Rate
	for {
		o.conn.SetReadDeadline(time.Now().Add(statusEvery))
		b, from, err := r.Read()
		now := time.Now()
		switch {
		case err == nil:
			if err := l.Decode(u.vals, b, order); err == nil {
				h.push(u, fs.advance(u, now))
			}
		case errors.Is(err, wire.ErrSize):
			fs.wrongText = fmt.Sprintf("FlatUDP: datagrams of %d bytes from %v, expected %d for the signal list: check -signals", len(b), from, l.Size)
		case errors.Is(err, os.ErrDeadlineExceeded):
		default:
			if ctx.Err() != nil {
				return nil
			}
			h.SetStatus(StateError, err.Error())
			return err
		}
		if now.Sub(fs.checked) >= statusEvery {
			fs.checked = now
			f.updateStatus(h, r, &fs, now)
		}
	}
}

// flatState is the receive loop's clock and status memory.
type flatState struct {
	start, checked  time.Time
	clock           silenceClock
	started, silent bool
	wrong           uint64 // WrongSize at the last check
	wrongAt         time.Time
	wrongText       string
}

// advance stamps u with the counted time of a datagram arriving now and
// reports whether a break precedes it.
func (fs *flatState) advance(u *flatUpdate, now time.Time) (gap bool) {
	switch {
	case !fs.started:
		u.t, fs.started = now.Sub(fs.start).Seconds(), true
	case fs.silent || now.Sub(fs.clock.last) > fs.clock.timeout():
		u.t += now.Sub(fs.clock.last).Seconds()
		gap = true
	default:
		u.t += 1 / u.rate
	}
	fs.silent = false
	fs.clock.arrived(now)
	return gap
}

// updateStatus sets the hub's status from the counters: a wrong size
// warning first, then silence, then receiving.
func (f *FlatUDP) updateStatus(h *Hub, r *flatclient.Receiver, fs *flatState, now time.Time) {
	if st := r.Stats(); st.WrongSize != fs.wrong {
		fs.wrong, fs.wrongAt = st.WrongSize, now
	}
	switch {
	case !fs.wrongAt.IsZero() && now.Sub(fs.wrongAt) < wrongSizeHold && fs.wrongText != "":
		h.SetStatus(StateWarning, fs.wrongText)
	case fs.started && now.Sub(fs.clock.last) > fs.clock.timeout():
		if !fs.silent {
			fs.silent = true
			f.silences.Add(1)
			h.silenced()
		}
		h.SetStatus(StateSilent, fmt.Sprintf("FlatUDP on %s: no datagram for %v (silence)", f.addr, fs.clock.timeout()))
	case fs.started:
		h.SetStatus(StateReceiving, "receiving FlatUDP datagrams on "+f.addr)
	}
}

// flatSignals describes a layout's signals for the page.
func flatSignals(l *wire.Layout, rate float64) []Signal {
	sigs := make([]Signal, len(l.Signals))
	for i, s := range l.Signals {
		sig := Signal{Name: s.Name, Type: s.Type.String(), Elements: s.Count, Dims: "scalar",
			Trace: s.Count == 1 || s.Waveform, Time: "counted at " + strconv.FormatFloat(rate, 'g', -1, 64) + " Hz",
			float: s.Type.IsFloat(), size: s.Type.Size()}
		if s.Count > 1 {
			sig.Dims = "[" + strconv.Itoa(s.Count) + "]"
			sig.WaveX = "index"
		}
		if s.Type == datasource.Char8 {
			sig.Trace, sig.WaveX, sig.Text = false, "", true
		}
		if s.Waveform {
			sig.WaveX = "time"
			sig.Time = strconv.Itoa(s.Count) + " samples per datagram at " + strconv.FormatFloat(rate*float64(s.Count), 'g', -1, 64) + " Hz"
		}
		sigs[i] = sig
	}
	return sigs
}

// flatUpdate is one decoded datagram as the hub takes it.
type flatUpdate struct {
	vals  []float64   // every element, in layout order
	off   []int       // per signal, its first element in vals
	times [][]float64 // per signal, reused
	wave  []bool
	t     float64 // the datagram's counted time
	rate  float64
}

func newFlatUpdate(l *wire.Layout, rate float64) *flatUpdate {
	u := &flatUpdate{vals: make([]float64, l.TotalElements()), rate: rate}
	k := 0
	for _, s := range l.Signals {
		u.off = append(u.off, k)
		u.times = append(u.times, make([]float64, s.Count))
		u.wave = append(u.wave, s.Waveform)
		k += s.Count
	}
	return u
}

func (u *flatUpdate) Values(i int) []float64 { return u.vals[u.off[i] : u.off[i]+len(u.times[i])] }

func (u *flatUpdate) Times(i int) []float64 {
	ts := u.times[i]
	step := 0.0
	if u.wave[i] {
		step = 1 / (u.rate * float64(len(ts)))
	}
	for k := range ts {
		ts[k] = u.t + float64(k)*step
	}
	return ts
}
