package scope

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamerd/streamerd/datasource/rd100s/wire"
	rdclient "github.com/streamerd/streamerd/internal/rd100slink"
)

// RD100S is a source that listens for an RD100S-ENC-UDP v1 position stream
// and watches its link with the client library's Monitor: times are the
// packets' t_us, lost is what the sequence numbers say is missing (less
// what arrived late), silences are the Monitor's stream timeouts.
type RD100S struct {
	Listen  string                 // local host:port to receive on
	Monitor rdclient.MonitorConfig // zero fields: the receiver rules' defaults

	bytes atomic.Uint64
	addr  string // the address bound, for messages; Run's goroutine only
	mu    sync.Mutex
	snap  rdclient.Stats // the Monitor's, copied by the receive loop
}

// Signals of an RD100S stream, in the order of the page's list.
var rd100sSignals = []Signal{
	{Name: "az", Type: "int32 mdeg", Unit: "deg", Dims: "scalar", Elements: 1, Time: "t_us", Trace: true, float: true, size: 4},
	{Name: "el", Type: "int32 mdeg", Unit: "deg", Dims: "scalar", Elements: 1, Time: "t_us", Trace: true, float: true, size: 4},
	{Name: "az_rate", Type: "int32 mdeg/s", Unit: "deg/s", Dims: "scalar", Elements: 1, Time: "t_us", Trace: true, float: true, size: 4},
	{Name: "el_rate", Type: "int32 mdeg/s", Unit: "deg/s", Dims: "scalar", Elements: 1, Time: "t_us", Trace: true, float: true, size: 4},
	{Name: "status", Type: "uint16", Dims: "scalar", Elements: 1, Time: "t_us", Trace: true, size: 2},
	{Name: "seq", Type: "uint32", Dims: "scalar", Elements: 1, Time: "t_us", Trace: true, size: 4},
}

// Info names the source.
func (s *RD100S) Info() Info { return Info{Kind: "RD100S", Address: s.Listen} }

// Counters returns the Monitor's counts as of the last copy (every
// statusEvery).
func (s *RD100S) Counters() Counters {
	s.mu.Lock()
	st := s.snap
	s.mu.Unlock()
	link := "waiting"
	switch {
	case st.TimedOut:
		link = "timed out"
	case st.Frozen:
		link = "frozen"
	case st.HaveLast:
		link = "ok"
	}
	return Counters{
		Updates: st.Packets, Bytes: s.bytes.Load(), Lost: st.Missing - st.Recovered,
		Stale: st.Duplicates + st.Reorders, Bad: st.DiscardSize + st.DiscardMagic + st.DiscardVersion,
		Silences: st.Timeouts, Link: link,
		Extra: []Count{
			{"gap events", st.GapEvents}, {"missing", st.Missing}, {"recovered", st.Recovered},
			{"duplicates", st.Duplicates}, {"reorders", st.Reorders}, {"restarts", st.Restarts},
			{"jumps back", st.JumpsBack}, {"time backwards", st.TimeBackwards}, {"frozen events", st.FrozenEvents},
			{"az invalid", st.AzInvalid}, {"el invalid", st.ElInvalid}, {"az fault", st.AzFault}, {"el fault", st.ElFault},
			{"SIM", st.Sim}, {"DEGRADED", st.Degraded},
			{"period mean µs", uint64(st.Period.MeanUs + 0.5)}, {"period p99 µs", st.Period.P99Us},
		},
	}
}

// Run listens until ctx ends.
func (s *RD100S) Run(ctx context.Context, h *Hub) error {
	conn, err := rdclient.ListenUDP(s.Listen)
	if err != nil {
		h.SetStatus(StateError, err.Error())
		return err
	}
	defer conn.Close()
	s.addr = conn.LocalAddr().String()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	m := rdclient.NewMonitor(s.Monitor)
	h.Configure(Info{Kind: "RD100S", Address: s.addr}, rd100sSignals)
	h.SetStatus(StateWaiting, "listening for RD100S-ENC-UDP on "+s.addr)
	var u rdUpdate
	var buf [512]byte // longer than a packet, so a long datagram is seen as long
	var checked time.Time
	var seq uint32 // of the last packet pushed
	timedOut := false
	for {
		conn.SetReadDeadline(time.Now().Add(statusEvery / 2))
		n, _, err := conn.ReadFromUDPAddrPort(buf[:])
		now := time.Now()
		switch {
		case err == nil:
			s.bytes.Add(uint64(n))
			switch m.Observe(buf[:n], now) {
			case rdclient.ClassDiscarded, rdclient.ClassDuplicate, rdclient.ClassReorder:
			case rdclient.ClassGap:
				u.set(buf[:n])
				h.missed(u.seq-seq-1, 0)
				h.push(&u, true)
				seq = u.seq
			default:
				u.set(buf[:n])
				h.push(&u, false)
				seq = u.seq
			}
		case errors.Is(err, os.ErrDeadlineExceeded):
			m.Tick(now)
		default:
			if ctx.Err() != nil {
				return nil
			}
			h.SetStatus(StateError, err.Error())
			return err
		}
		if now.Sub(checked) >= statusEvery {
			checked = now
			if st := s.publish(h, m); st.TimedOut != timedOut {
				if timedOut = st.TimedOut; timedOut {
					h.silenced()
				}
			}
		}
	}
}

// publish copies the Monitor's counters, sets the status from them and
// returns them.
func (s *RD100S) publish(h *Hub, m *rdclient.Monitor) rdclient.Stats {
	st := m.Snapshot()
	s.mu.Lock()
	s.snap = st
	s.mu.Unlock()
	switch {
	case st.TimedOut:
		h.SetStatus(StateSilent, fmt.Sprintf("RD100S on %s: no packet for %v (stream timeout)", s.addr, m.Config().StreamTimeout))
	case st.Frozen:
		h.SetStatus(StateWarning, "RD100S on "+s.addr+": position frozen")
	case st.HaveLast:
		h.SetStatus(StateReceiving, "receiving RD100S-ENC-UDP on "+s.addr)
	}
	return st
}

// rdUpdate is one packet as the hub takes it.
type rdUpdate struct {
	t    [1]float64
	vals [6][1]float64
	seq  uint32
}

func (u *rdUpdate) set(b []byte) {
	p, err := wire.ParsePacket(b)
	if err != nil {
		return // Observe accepted it, so it parses
	}
	u.t[0] = float64(p.TUs) / 1e6
	u.vals[0][0] = float64(p.AzMdeg) / 1000 // degrees
	u.vals[1][0] = float64(p.ElMdeg) / 1000
	u.vals[2][0] = float64(p.AzRate) / 1000
	u.vals[3][0] = float64(p.ElRate) / 1000
	u.vals[4][0] = float64(p.Status)
	u.vals[5][0] = float64(p.Seq)
	u.seq = p.Seq
}

func (u *rdUpdate) Values(i int) []float64 { return u.vals[i][:] }
func (u *rdUpdate) Times(int) []float64    { return u.t[:] }
