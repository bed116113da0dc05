package flatudp

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp/internal/mcast"
	"github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/datasource/internal/handoff"
	"github.com/streamerd/streamerd/datasource/internal/lifecycle"
	"github.com/streamerd/streamerd/datasource/internal/memory"
	"github.com/streamerd/streamerd/datasource/internal/sendpath"
	"github.com/streamerd/streamerd/netthread"
	"github.com/streamerd/streamerd/rt/cpu"
	"github.com/streamerd/streamerd/rt/rtsync"
)

// errOverflow is returned by Synchronise in RealTimeThread mode when the
// ring is full: the sender thread is behind by NumberOfBuffers cycles, the
// newest cycle is refused and counted, and the RT thread carries on (MARTe2
// fails the cycle too). In IndependentThread mode a refused cycle is
// counted and Synchronise returns nil. It is a sentinel: returning it never
// allocates.
var errOverflow = fmt.Errorf("flatudp: ring full, cycle refused (sender thread behind): %w", datasource.ErrCycleSkipped)

// Sender is a FlatUDP datasource: MARTe2's UDPSender. Its methods follow
// the datasource.DataSource contract: Synchronise from the RT thread only;
// AllocateMemory, GetSignalMemoryBuffer, PrepareNextState and Close from the
// goroutine that builds and stops the application; Name, Signals,
// SignalsString and Metrics from any goroutine.
type Sender struct {
	life lifecycle.Lifecycle
	// Read-only once PrepareNextState has returned.
	cfg     Config
	sigs    []datasource.Signal
	layout  *wire.Layout
	sigStr  string
	dst     netip.AddrPort
	log     *slog.Logger
	m       *senderMetrics
	mem     *memory.Memory
	ring    *ring
	buffers int               // the ring's length in cycles
	queue   handoff.Size      // the part of it that queues for the sender
	wait    *netthread.Waiter // the sender thread's wait for sem
	keep    uint64            // cycles kept unreleased behind next (pre-triggers)
	big     bool
	runs    []elemRun // the layout's signals, for swapToBig
	sendBuf []byte    // written by the sender thread only
	conn    *net.UDPConn
	out     *sendpath.Sender // sends to dst; sender thread only
	watch   *sendpath.DestWatch
	thread  *netthread.Thread
	// sendBuffer is the socket's send buffer as the kernel granted it.
	sendBuffer int

	// beforeDrain, when set (by tests, before PrepareNextState), runs on
	// the sender thread before every drain of the ring; blocking in it
	// stalls the sender.
	beforeDrain func()

	// The EventSem is written by both threads; the paddings keep it, and
	// the sender thread's per-cycle state below, off the lines the RT
	// thread reads above.
	_   [cacheLine]byte
	sem rtsync.EventSem
	_   [cacheLine]byte

	// Sender thread state.
	sel  selector
	next uint64 // next cycle to hand to the selector
	warn warnLimiter
	_    [cacheLine]byte

	started atomic.Bool
	running atomic.Bool

	skips rtsync.StampRing // when cycles were refused, cpu.Now ns (internals.go)
}

var _ datasource.DataSource = (*Sender)(nil)

// New validates cfg and returns a Sender. Its metrics are registered in
// ms, named streamerd_flatudp_<metric>{datasource="<Name>"} (a nil ms: a
// private set, which Metrics returns); Close unregisters them. New refuses
// a name whose metrics ms already holds, from a producer not yet closed.
// log receives a line when the sender starts and rate-limited warnings
// about overflows and send errors, never one per cycle (nil: no logging).
func New(cfg Config, ms *metrics.Set, log *slog.Logger) (*Sender, error) {
	cfg.Signals = slices.Clone(cfg.Signals) // the caller may change its slice after New
	if err := Validate(&cfg); err != nil {
		return nil, err
	}
	if !nativeLittleEndian {
		return nil, fmt.Errorf("datasource %q: FlatUDP needs a little-endian host (signal memory is converted from little-endian)", cfg.Name)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := cfg.withDefaults()
	layout, err := wire.NewLayout(flatSignals(c.Signals))
	if err != nil { // Validate checked the same rules
		return nil, fmt.Errorf("datasource %q: %w", c.Name, err)
	}
	a, _ := netip.ParseAddr(c.Address)
	s := &Sender{
		cfg:    c,
		sigs:   c.Signals,
		layout: layout,
		sigStr: wire.FormatSignals(layout.Signals),
		dst:    netip.AddrPortFrom(a.Unmap(), uint16(c.Port)),
		log:    log.With("datasource", c.Name),
		big:    c.ByteOrder == wire.Big,
		runs:   elemRuns(layout.Signals),
	}
	s.buffers, s.queue = c.ringSize(layout.Size)
	s.wait = netthread.NewWaiter(c.NetworkWait, c.NetworkSpin, c.CyclePeriod)
	if c.independent() {
		s.keep = uint64(c.NumberOfPreTriggers)
		s.sel = selector{pre: uint64(c.NumberOfPreTriggers), post: uint64(c.NumberOfPostTriggers)}
	} else {
		s.sel = selector{every: true}
	}
	s.m = newSenderMetrics(ms, c.Name, func() float64 {
		if r := s.ringPtr(); r != nil {
			return float64(r.depth())
		}
		return 0
	})
	if err := s.m.reg.Err(); err != nil {
		s.m.reg.Unregister()
		return nil, fmt.Errorf("datasource %q: %w", c.Name, err)
	}
	if err := udpscopeRefusal(layout.Signals); err != nil {
		s.log.Warn("udpscope will refuse this signal list", "signals", s.sigStr, "reason", err.Error())
	}
	s.life.Init(c.Name, c.Signals)
	return s, nil
}

// ringPtr returns the ring once AllocateMemory has made it.
func (s *Sender) ringPtr() *ring {
	if !s.started.Load() {
		return nil
	}
	return s.ring
}

// made reports whether s came from New: not a nil or zero Sender, whose
// calls return notMade's errors.
func (s *Sender) made() bool { return s != nil && s.life.Made() }

// notMade returns the error of op on a Sender New did not make.
func notMade(op string) error { return lifecycle.NotMade("flatudp.Sender", op) }

// errSynchroniseNotMade is Synchronise's notMade, built once: the RT thread
// does not allocate for it.
var errSynchroniseNotMade = notMade("Synchronise")

// Name returns the datasource name.
func (s *Sender) Name() string {
	if s == nil {
		return ""
	}
	return s.cfg.Name
}

// Signals returns the configured signals.
func (s *Sender) Signals() []datasource.Signal {
	if s == nil {
		return nil
	}
	return s.sigs
}

// SignalsString returns the udpscope signals string of the datagram, for
// example "Trigger:uint8,Ia:float32,Wave:float32[16]", to paste into a
// receiver. Vectors are written as channels (no "w" suffix).
func (s *Sender) SignalsString() string {
	if s == nil {
		return ""
	}
	return s.sigStr
}

// DatagramSize returns the size of every datagram in bytes.
func (s *Sender) datagramSize() int { return s.layout.Size }

// Destination returns the address every datagram is sent to.
func (s *Sender) destination() netip.AddrPort { return s.dst }

// Metrics returns the set the Sender's metrics are registered in: the one
// given to New, or its private set (an empty set of its own for a nil or
// zero Sender).
func (s *Sender) Metrics() *metrics.Set {
	if s == nil || s.m == nil {
		return metrics.NewSet()
	}
	return s.m.reg.Set()
}

// AllocateMemory allocates signal memory, the ring and the send buffer.
func (s *Sender) AllocateMemory() error {
	if !s.made() {
		return notMade("AllocateMemory")
	}
	return s.life.Allocate(func(mem *memory.Memory) error {
		s.mem = mem
		s.ring = newRing(s.buffers, mem.Size())
		s.sendBuf = make([]byte, mem.Size())
		return nil
	})
}

// GetSignalMemoryBuffer returns the bytes of signal i in signal memory
// (after AllocateMemory or Start, before Close).
func (s *Sender) GetSignalMemoryBuffer(i int) ([]byte, error) {
	if !s.made() {
		return nil, notMade("GetSignalMemoryBuffer")
	}
	return s.life.Buffer(i)
}

// localAddr returns the address the sending socket is bound to (valid after
// Open or PrepareNextState).
func (s *Sender) localAddr() netip.AddrPort {
	if !s.started.Load() || s.conn == nil {
		return netip.AddrPort{}
	}
	return s.conn.LocalAddr().(*net.UDPAddr).AddrPort()
}

// openStep opens the sending socket without sending anything (the step
// datasource.DataSource describes).
func (s *Sender) openStep() error { return s.life.Open(s.openConn) }

func (s *Sender) openConn() error {
	conn, err := s.open()
	if err != nil {
		return fmt.Errorf("socket to %s: %w", s.dst, err)
	}
	// Room for a burst of queued cycles in the kernel; read back, logged
	// once.
	bufs, err := netthread.SetBuffers(conn, max(1<<20, 4*s.layout.Size), 0)
	if err != nil {
		conn.Close()
		return fmt.Errorf("socket buffers: %w", err)
	}
	s.sendBuffer = bufs.SendGot
	if err := s.openWatch(conn); err != nil {
		conn.Close()
		return err
	}
	s.conn = conn
	bufs.Log(s.log, "sender", s.layout.Size)
	return nil
}

// PrepareNextState starts the sender thread, opening the socket first
// unless Open did.
func (s *Sender) PrepareNextState() error {
	if !s.made() {
		return notMade("PrepareNextState")
	}
	return s.life.Prepare(s.openConn, s.start, s.unopen)
}

// Start is the Go-shaped start: it allocates signal memory unless
// AllocateMemory did, opens the socket unless Open did, and starts the
// sender thread; when ctx is done, the Sender closes itself (as Close). A
// nil ctx, or one already done, is refused and starts nothing.
func (s *Sender) Start(ctx context.Context) error {
	if !s.made() {
		return notMade("Start")
	}
	return s.life.Start(ctx, s.AllocateMemory, s.PrepareNextState, s.Close)
}

// unopen closes the socket openConn opened, when the start after it failed.
func (s *Sender) unopen() {
	s.conn.Close()
	s.conn = nil
}

// start starts the sender thread on the open socket.
func (s *Sender) start() error {
	th, err := netthread.Start(netthread.Config{Name: s.cfg.Name, CPUMask: s.cfg.CPUMask, Priority: s.cfg.Priority, Wake: s.sem.Post}, s.serve)
	if err != nil {
		return fmt.Errorf("sender thread: %w", err)
	}
	s.thread = th
	s.started.Store(true)
	s.running.Store(true)
	s.log.Info("FlatUDP sending", "destination", s.dst.String(), "local", s.localAddr().String(),
		"execution_mode", s.cfg.mode(), "byte_order", s.cfg.ByteOrder.String(),
		"datagram_bytes", s.layout.Size, "buffers", s.buffers, "queue", s.queue.String(),
		"pre_triggers", s.cfg.NumberOfPreTriggers, "post_triggers", s.cfg.NumberOfPostTriggers,
		"cpu_mask", s.cfg.CPUMask.String(), "priority", s.cfg.Priority, "network_wait", s.wait.Mode().String(),
		"signals", s.sigStr)
	return nil
}

// open returns an unconnected UDP socket for the destination's family. A
// multicast socket gets IP_MULTICAST_IF, _TTL and _LOOP before it is
// bound.
func (s *Sender) open() (*net.UDPConn, error) {
	network, local := "udp4", "0.0.0.0:0"
	if !s.dst.Addr().Is4() {
		network, local = "udp6", "[::]:0"
	}
	var lc net.ListenConfig
	if s.dst.Addr().IsMulticast() {
		ctl, err := mcast.SendControl(s.cfg.Interface, s.cfg.TTL, s.cfg.Loopback)
		if err != nil {
			return nil, err
		}
		lc.Control = ctl
	}
	pc, err := lc.ListenPacket(context.Background(), network, local)
	if err != nil {
		return nil, err
	}
	return pc.(*net.UDPConn), nil
}

// Synchronise queues a copy of signal memory for the sender thread and
// wakes it. It never waits: when the ring is full the cycle is refused and
// counted as an overflow (datasource.ErrCycleSkipped in RealTimeThread mode, nil in
// IndependentThread mode). It does not allocate.
func (s *Sender) Synchronise() error {
	if !s.made() {
		return errSynchroniseNotMade
	}
	if err := s.life.Ready(); err != nil {
		return err
	}
	s.m.synchronised.Inc()
	ok := s.ring.push(s.mem.Block())
	// Post even after an overflow: the sender must be woken to drain.
	if s.sem.PostWoke() {
		s.m.wakeups.Inc()
	}
	if ok {
		s.m.queued.Inc()
		return nil
	}
	s.m.overflows.Inc() // a cycle dropped at the hand-off
	s.skips.Stamp(cpu.Now())
	if s.cfg.realTime() {
		return errOverflow
	}
	return nil
}

// Close stops the sender thread, after it has sent what the ring holds,
// closes the socket and unregisters the metrics, so a Sender of the same
// name can be made again with the same metrics set. It may be called from
// any goroutine, in any state; a second Close does nothing and returns
// nil. Every other call then returns datasource.ErrClosed, Synchronise
// included (still without allocating).
func (s *Sender) Close() error {
	if !s.made() {
		return notMade("Close")
	}
	return s.life.Close(s.close)
}

func (s *Sender) close(lifecycle.State) error {
	defer s.m.reg.Unregister()
	if s.conn == nil {
		return nil
	}
	var err error
	if s.thread != nil {
		err = s.thread.Stop()
	}
	s.running.Store(false)
	s.conn.Close()
	s.log.Info("FlatUDP stopped", "destination", s.dst.String(), "datagrams_sent", s.m.datagrams.Get(), "cycles_refused", s.m.overflows.Get(), "send_errors", s.m.errors.Get())
	return err
}

// waitTimeout bounds one wait of the sender thread: even a lost wake-up
// delays the queued cycles by at most this long.
const waitTimeout = 20 * time.Millisecond

// serve is the sender thread's loop. It drains everything queued on every
// wake-up and after every timeout, so no sequence of overflows can leave it
// asleep with cycles queued (MARTe2's lock-up after a "Buffer overrun").
func (s *Sender) serve(stop <-chan struct{}) {
	for {
		_ = s.wait.Wait(&s.sem, waitTimeout)
		if s.beforeDrain != nil {
			s.beforeDrain()
		}
		s.drain()
		select {
		case <-stop:
			s.drain() // what the RT thread queued before the stop
			return
		default:
		}
		s.warn.check(s)
		s.watchTick()
	}
}

// drain hands every published cycle to the selector, sends what it picks,
// and releases the cycles no longer needed as pre-triggers.
func (s *Sender) drain() {
	r := s.ring
	h := r.published()
	for seq := s.next; seq < h; seq++ {
		trig := false
		if !s.sel.every {
			trig = r.slot(seq)[0] != 0
			if trig {
				s.m.triggers.Inc()
			}
		}
		from, to := s.sel.next(seq, trig)
		for k := from; k < to; k++ {
			s.send(r.slot(k))
		}
		// The cycle leaving the pre-trigger window now is gone for good.
		if seq >= s.keep && seq-s.keep >= s.sel.sent {
			s.m.skipped.Inc()
		}
		s.next = seq + 1
		r.release(s.next - min(s.next, s.keep))
	}
}

// send writes one cycle to the socket, in the configured byte order.
func (s *Sender) send(cycle []byte) {
	b := cycle
	if s.big {
		swapToBig(s.sendBuf, cycle, s.runs)
		b = s.sendBuf
	}
	s.m.sent.Inc()
	if err := s.sendWatched(b); err != nil {
		s.m.errors.Inc()
		s.warn.lastErr = err
		return
	}
	s.m.datagrams.Inc()
	s.m.bytes.Add(len(b))
}

// warnInterval spaces the warnings about overflows and send errors.
const warnInterval = 10 * time.Second

// warnLimiter logs overflows and send errors from the sender thread, at
// most once per warnInterval each, with the count since the last warning.
type warnLimiter struct {
	overflows, errors uint64
	lastOverflow      time.Time
	lastError         time.Time
	lastErr           error
}

func (w *warnLimiter) check(s *Sender) {
	if o := s.m.overflows.Get(); o != w.overflows {
		if now := time.Now(); now.Sub(w.lastOverflow) >= warnInterval {
			s.log.Warn("ring full: cycles refused (sender thread behind)", "refused", o-w.overflows,
				"total", o, "buffers", s.buffers, "execution_mode", s.cfg.mode())
			w.overflows, w.lastOverflow = o, now
		}
	}
	if e := s.m.errors.Get(); e != w.errors {
		if now := time.Now(); now.Sub(w.lastError) >= warnInterval {
			s.log.Warn("send errors", "errors", e-w.errors, "total", e, "destination", s.dst.String(), "last_error", fmt.Sprint(w.lastErr))
			w.errors, w.lastError = e, now
		}
	}
}

// statusReport is a snapshot of the datasource for /status
// (docs/status.md names every field).
type statusReport struct {
	Name          string `json:"name"`
	Class         string `json:"class"`
	Destination   string `json:"destination"`
	Local         string `json:"local,omitempty"`
	Running       bool   `json:"running"`
	ExecutionMode string `json:"execution_mode"`
	ByteOrder     string `json:"byte_order"`
	DatagramBytes int    `json:"datagram_bytes"`
	Buffers       int    `json:"buffers"`
	// BuffersAuto is true when the ring's length was chosen by time, and
	// QueueCoversMs the time the cycles queued beyond the pre-trigger
	// history last at the period it was sized for, in ms.
	BuffersAuto   bool    `json:"buffers_auto"`
	QueueCoversMs float64 `json:"queue_covers_ms"`
	// NetworkWait is how the sender thread waits for a cycle (paced, spin
	// or park), and NetworkWakeups how many Synchronise calls found it
	// asleep and woke it with a system call.
	NetworkWait    string `json:"network_wait"`
	NetworkWakeups uint64 `json:"network_wakeups"`
	PreTriggers    int    `json:"pre_triggers,omitempty"`
	PostTriggers   int    `json:"post_triggers,omitempty"`
	Signals        string `json:"signals"`
	SendBuffer     int    `json:"send_buffer_bytes,omitempty"`

	CyclesQueued  uint64 `json:"cycles_queued"`
	CyclesSent    uint64 `json:"cycles_sent"`
	DatagramsSent uint64 `json:"datagrams_sent"`
	BytesSent     uint64 `json:"bytes_sent"`
	Overflows     uint64 `json:"overflows"`
	SendErrors    uint64 `json:"send_errors"`
	Triggers      uint64 `json:"triggers,omitempty"`
	// DestinationUnreachable is true while the destination answers with
	// ICMP port unreachable: no receiver listens there.
	DestinationUnreachable bool `json:"destination_unreachable"`
}

// describe returns one line on the datagrams for a layout listing
// (streamerd -describe).
func (s *Sender) describe() string {
	return fmt.Sprintf("datagram: %d bytes to %v, %s, byte order %s; ring: %d cycles, queue for the sender thread: %v; network wait: %v",
		s.layout.Size, s.dst, s.cfg.mode(), s.cfg.ByteOrder, s.buffers, s.queue, s.wait.Mode())
}

// sendBufferBytes returns the send buffer once PrepareNextState has set it.
func (s *Sender) sendBufferBytes() int {
	if !s.started.Load() {
		return 0
	}
	return s.sendBuffer
}

// snapshot returns a snapshot for /status; the counters are read one by one,
// atomically.
func (s *Sender) snapshot() statusReport {
	st := statusReport{
		Name:           s.cfg.Name,
		Class:          "FlatUDP",
		Destination:    s.dst.String(),
		Running:        s.running.Load(),
		ExecutionMode:  s.cfg.mode(),
		ByteOrder:      s.cfg.ByteOrder.String(),
		DatagramBytes:  s.layout.Size,
		Buffers:        s.buffers,
		BuffersAuto:    s.queue.Auto,
		QueueCoversMs:  float64(s.queue.Covers) / float64(time.Millisecond),
		NetworkWait:    s.wait.Mode().String(),
		NetworkWakeups: s.m.wakeups.Get(),
		PreTriggers:    s.cfg.NumberOfPreTriggers,
		PostTriggers:   s.cfg.NumberOfPostTriggers,
		Signals:        s.sigStr,
		SendBuffer:     s.sendBufferBytes(),
		CyclesQueued:   s.m.queued.Get(),
		CyclesSent:     s.m.sent.Get(),
		DatagramsSent:  s.m.datagrams.Get(),
		BytesSent:      s.m.bytes.Get(),
		Overflows:      s.m.overflows.Get(),
		SendErrors:     s.m.errors.Get(),
		Triggers:       s.m.triggers.Get(),

		DestinationUnreachable: s.m.unreachable.Get() != 0,
	}
	if a := s.localAddr(); a.IsValid() {
		st.Local = a.String()
	}
	return st
}
