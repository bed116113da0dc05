package scope

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/cli"
	"github.com/streamerd/streamerd/quant"
)

// UDPStreamer is a source that holds one session with a UDPStreamer
// server through the client library: the scope is the server's one client
// and the fan-out to every page.
//
// Silence: no update for max(MinSilence, 5 expected periods) is counted and
// shown; with Reconnect the source then sends CONNECT again (the server
// may have restarted, or another client taken the session), backing off
// from 1 s to 30 s while no CONFIG comes.
type UDPStreamer struct {
	Server    string         // host:port
	Client    client.Options // the client library's limits
	Reconnect bool

	c        atomic.Pointer[client.Client]
	silences atomic.Uint64
	quiet    bool // a silence was counted and no update came since; Run's goroutine only
}

// Reconnection back-off bounds (variables for tests).
var (
	minBackoff = time.Second
	maxBackoff = 30 * time.Second
)

var errSilence = errors.New("scope: the stream went silent")

// Info names the source.
func (u *UDPStreamer) Info() Info { return Info{Kind: "UDPStreamer", Address: u.Server} }

// Counters returns the session's counts.
func (u *UDPStreamer) Counters() Counters {
	c := u.c.Load()
	if c == nil {
		return Counters{Silences: u.silences.Load()}
	}
	st := c.Stats()
	bad, dropped := st.BadHeader, st.Dropped
	return Counters{
		Updates: st.Updates, Bytes: st.Bytes, Lost: st.Lost, Skipped: st.Skipped, Stale: st.Stale, Incomplete: st.Incomplete,
		Bad: bad + st.Foreign + st.Unexpected + st.BadConfigs, Silences: u.silences.Load(),
		Extra: []Count{
			{"datagrams", st.Datagrams}, {"CONFIGs", st.Configs}, {"CONFIGs refused", st.BadConfigs},
			{"fragments dropped", dropped}, {"malformed datagrams", bad}, {"from other senders", st.Foreign},
		},
	}
}

// Run connects, receives, and reconnects after a silence until ctx ends.
func (u *UDPStreamer) Run(ctx context.Context, h *Hub) error {
	c, err := client.Dial(u.Server, u.Client)
	if err != nil {
		h.SetStatus(StateError, err.Error())
		return err
	}
	u.c.Store(c)
	stop := context.AfterFunc(ctx, func() {
		c.Disconnect()
		c.Close()
	})
	defer func() {
		if stop() {
			c.Disconnect()
			c.Close()
		}
	}()
	backoff := minBackoff
	for ctx.Err() == nil {
		if h.Status().State == StateStarting {
			h.SetStatus(StateWaiting, "connecting to UDPStreamer "+u.Server)
		}
		cfg, err := c.Connect(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			h.SetStatus(StateError, u.connectProblem(err)+"; retrying")
			if !sleep(ctx, backoff) {
				return nil
			}
			backoff = min(2*backoff, maxBackoff)
			continue
		}
		backoff = minBackoff
		u.configure(h, cfg)
		err = u.receive(ctx, c, h)
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, errSilence):
			if !u.Reconnect {
				return u.waitSilent(ctx, c, h)
			}
		case errors.Is(err, client.ErrUnsupportedConfig):
			h.SetStatus(StateError, err.Error())
			if !sleep(ctx, backoff) {
				return nil
			}
		default:
			h.SetStatus(StateError, err.Error())
			return err
		}
	}
	return nil
}

// connectProblem says in one line, the same at every try, why Connect
// failed.
func (u *UDPStreamer) connectProblem(err error) string {
	if errors.Is(err, client.ErrConnectTimeout) {
		to := u.Client.ConnectTimeout
		if to <= 0 {
			to = 2 * time.Second // the client's default
		}
		return fmt.Sprintf("UDPStreamer %s does not answer: no CONFIG within %v", u.Server, to)
	}
	return err.Error()
}

// waitSilent keeps the session after a silence without reconnecting,
// until updates come back (then receives again) or ctx ends.
func (u *UDPStreamer) waitSilent(ctx context.Context, c *client.Client, h *Hub) error {
	for {
		err := u.receive(ctx, c, h)
		if ctx.Err() != nil {
			return nil
		}
		if !errors.Is(err, errSilence) {
			h.SetStatus(StateError, err.Error())
			return err
		}
	}
}

// sleep waits d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// receive pushes updates to the hub until a silence (errSilence), a
// CONFIG the client refuses, or a socket error.
func (u *UDPStreamer) receive(ctx context.Context, c *client.Client, h *Hub) error {
	var upd client.Update
	var clock silenceClock
	receiving, gap := false, true
	for {
		c.SetReadDeadline(time.Now().Add(clock.timeout()))
		err := c.Next(&upd)
		switch {
		case err == nil:
		case errors.Is(err, client.ErrConfigChanged):
			u.configure(h, c.Config())
			clock.restart()
			receiving = false
			continue
		case errors.Is(err, os.ErrDeadlineExceeded):
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if !u.quiet {
				u.quiet = true
				u.silences.Add(1)
				h.silenced()
			}
			h.SetStatus(StateSilent, fmt.Sprintf("UDPStreamer %s: no update for %v (silence)", u.Server, clock.timeout()))
			c.SetReadDeadline(time.Time{})
			return errSilence
		default:
			return err
		}
		clock.arrived(time.Now())
		u.quiet = false
		if !receiving {
			receiving = true
			h.SetStatus(StateReceiving, "receiving from UDPStreamer "+u.Server)
		}
		if upd.Lost > 0 || upd.Skipped > 0 {
			h.missed(upd.Lost, upd.Skipped)
		}
		h.push(udpsUpdate{&upd}, gap || upd.Lost > 0)
		gap = false
	}
}

// udpsUpdate hands a client Update to the hub.
type udpsUpdate struct{ u *client.Update }

func (a udpsUpdate) Values(i int) []float64 { return a.u.Float64s(i) }
func (a udpsUpdate) Times(i int) []float64  { return a.u.Times(i) }

// configure gives the hub the session's signal list.
func (u *UDPStreamer) configure(h *Hub, cfg *client.Config) { configureUDPS(h, u.Info(), cfg) }

// configureUDPS gives the hub the signal list of a UDPStreamer's CONFIG.
func configureUDPS(h *Hub, info Info, cfg *client.Config) {
	sigs := make([]Signal, len(cfg.Signals))
	clocks := map[string]int{} // time signal to clock; PacketTime is clock 0
	index := make(map[string]int, len(cfg.Signals))
	for i := range cfg.Signals {
		index[cfg.Signals[i].Name] = i
	}
	for i := range cfg.Signals {
		s := &cfg.Signals[i]
		sig := Signal{Name: s.Name, Type: s.Type.String(), Unit: s.Unit, Elements: s.Elements(),
			Dims: cli.Shape(s), Time: udpsTimeDesc(s), Trace: s.Elements() == 1 || s.TimeMode != datasource.PacketTime,
			float: s.Type.IsFloat(), size: s.Type.Size()}
		if s.QuantizedType != quant.None {
			sig.Type += " as " + cfg.WireType(i).String()
			sig.Range = []float64{s.RangeMin, s.RangeMax}
			if q, err := quant.New(s.QuantizedType, s.RangeMin, s.RangeMax); err == nil {
				sig.step = q.Step()
			}
		}
		if s.TimeMode != datasource.PacketTime {
			c, ok := clocks[s.TimeSignal]
			if !ok {
				c = len(clocks) + 1
				clocks[s.TimeSignal] = c
			}
			sig.Clock = c
		}
		if sig.Elements > 1 {
			sig.WaveX = "index"
			if s.TimeMode != datasource.PacketTime {
				sig.WaveX = "time"
			}
		}
		sigs[i] = sig
	}
	for i := range cfg.Signals {
		if s := &cfg.Signals[i]; s.TimeMode != datasource.PacketTime {
			if j, ok := index[s.TimeSignal]; ok {
				sigs[j].timeOf = true
			}
		}
	}
	if omitted := h.Configure(info, sigs); len(omitted) > 0 {
		h.log.Warn(fmt.Sprintf("UDPStreamer %s: the CONFIG has %d signals; the scope shows the first %d and leaves out %q and the rest",
			info.Address, len(sigs), len(sigs)-len(omitted), omitted[0]))
	}
}

func udpsTimeDesc(s *datasource.Signal) string {
	if s.TimeMode == datasource.PacketTime {
		return s.TimeMode.String() + " (server clock)"
	}
	d := s.TimeMode.String() + "(" + s.TimeSignal
	if s.TimeMode == datasource.FirstSample || s.TimeMode == datasource.LastSample {
		d += ", " + strconv.FormatFloat(s.SamplingRate, 'g', -1, 64) + " Hz"
	}
	return d + ")"
}
