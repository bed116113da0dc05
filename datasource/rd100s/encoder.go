package rd100s

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/internal/lifecycle"
	"github.com/streamerd/streamerd/datasource/internal/memory"
	"github.com/streamerd/streamerd/datasource/internal/rules"
	"github.com/streamerd/streamerd/datasource/internal/sendpath"
	"github.com/streamerd/streamerd/datasource/rd100s/wire"
	"github.com/streamerd/streamerd/netthread"
	"github.com/streamerd/streamerd/rt/rtsync"
)

// Spec names the wire contract this datasource implements.
const spec = "RD100S-ENC-UDP v1"

// errLockTimeout is returned by Synchronise when the FastLock could not be
// taken within 100 µs; the cycle is not published.
var errLockTimeout = fmt.Errorf("rd100s: FastLock timeout in Synchronise: %w", datasource.ErrCycleSkipped)

// notRunning is the error of Set when the encoder is not running: before
// its start, or after Close (datasource.ErrClosed).
func (e *Encoder) notRunning() error {
	if e.stopped.Load() || e.life.State() == lifecycle.Closed {
		return fmt.Errorf("datasource %q: Set: %w", e.cfg.Name, datasource.ErrClosed)
	}
	return fmt.Errorf("datasource %q: Set: the encoder is not running (start it first)", e.cfg.Name)
}

// Encoder is an RD100S encoder emulator datasource. Its datasource methods
// follow the datasource.DataSource contract (Synchronise from the RT thread
// only; the rest from the goroutine that builds and stops the application).
// The control methods (Set, and those of Internals)
// are safe from any goroutine.
type Encoder struct {
	life     lifecycle.Lifecycle
	cfg      Config
	sigs     []datasource.Signal
	dst      netip.AddrPort
	log      *slog.Logger
	m        *encoderMetrics
	periodNs float64
	refs     sigRefs

	mem *memory.Memory

	// RT → network hand-off, guarded by lock.
	lock        rtsync.FastLock
	lockTimeout time.Duration // Synchronise's wait for lock
	ready       []byte
	haveData    bool

	conn   *net.UDPConn
	out    *sendpath.Sender    // sends to dst; network thread only
	watch  *sendpath.DestWatch // ICMP port unreachable; network thread only
	reach  chan bool           // receiver gone (true) or back, for logEvents
	em     *emitter
	thread *netthread.Thread
	origin int64 // CLOCK_MONOTONIC ns at the emitter's start: the cadence grid
	// tZero is the CLOCK_MONOTONIC ns at t_us = 0: origin, until a
	// simulated restart moves it.
	tZero atomic.Int64
	// restartReq asks the emitter to simulate a restart at its next packet.
	restartReq atomic.Bool
	started    atomic.Bool
	stopped    atomic.Bool
	nextSeq    atomic.Uint32
	logCh      chan event
	logDone    chan struct{}
	ctl        control
	initial    degradations   // applied at Open, from Config.Degradations
	local      netip.AddrPort // where conn is bound, once started
}

var _ datasource.DataSource = (*Encoder)(nil)

// New validates cfg, resolves dest_host to an IPv4 address and returns an
// Encoder. Its metrics are registered in ms, named
// streamerd_rd100s_<metric>{datasource="<Name>"} (a nil ms: a private set,
// which Metrics returns); Close unregisters them. New refuses a name whose
// metrics ms already holds, from a producer not yet closed. log gets one
// line per start, stop and degradation event, never per packet (nil: no
// logging).
func New(cfg Config, ms *metrics.Set, log *slog.Logger) (*Encoder, error) {
	cfg.Signals = slices.Clone(cfg.Signals) // the caller may change its slice after New
	if err := Validate(&cfg); err != nil {
		return nil, err
	}
	c := cfg.withDefaults()
	addr, err := net.ResolveUDPAddr("udp4", net.JoinHostPort(c.DestHost, strconv.Itoa(c.DestPort)))
	if err != nil {
		return nil, rules.ParamError(c.Name, "dest_host", "%q does not resolve to an IPv4 address: %v", c.DestHost, err)
	}
	dst := addr.AddrPort()
	dst = netip.AddrPortFrom(dst.Addr().Unmap(), dst.Port())
	if !dst.Addr().Is4() {
		return nil, rules.ParamError(c.Name, "dest_host", "%q resolved to %v, not an IPv4 address", c.DestHost, dst.Addr())
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := &Encoder{
		cfg:      c,
		sigs:     c.Signals,
		dst:      dst,
		log:      log.With("datasource", c.Name),
		m:        newEncoderMetrics(ms, c.Name),
		periodNs: periodNs(c.RateHz),
		initial:  parseDegradations(c.Degradations, &rules.ConfigErrors{}), // validated above

		lockTimeout: lockTimeout,
	}
	e.refs = newSigRefs(&c)
	e.nextSeq.Store(c.FirstSeq)
	if err := e.m.reg.Err(); err != nil {
		e.m.reg.Unregister()
		return nil, fmt.Errorf("datasource %q: %w", c.Name, err)
	}
	e.life.Init(c.Name, c.Signals)
	return e, nil
}

// made reports whether e came from New: not a nil or zero Encoder, whose
// calls return notMade's errors.
func (e *Encoder) made() bool { return e != nil && e.life.Made() }

// notMade returns the error of op on a Encoder New did not make.
func notMade(op string) error { return lifecycle.NotMade("rd100s.Encoder", op) }

// errSynchroniseNotMade is Synchronise's notMade, built once: the RT thread
// does not allocate for it.
var errSynchroniseNotMade = notMade("Synchronise")

// Name returns the datasource name.
func (e *Encoder) Name() string {
	if e == nil {
		return ""
	}
	return e.cfg.Name
}

// Signals returns the configured signals.
func (e *Encoder) Signals() []datasource.Signal {
	if e == nil {
		return nil
	}
	return e.sigs
}

// RateHz returns the emission cadence.
func (e *Encoder) rateHz() float64 { return e.cfg.RateHz }

// Metrics returns the set the Encoder's metrics are registered in: the
// one given to New, or its private set (an empty set of its own for a nil
// or zero Encoder).
func (e *Encoder) Metrics() *metrics.Set {
	if e == nil || e.m == nil {
		return metrics.NewSet()
	}
	return e.m.reg.Set()
}

// AllocateMemory allocates signal memory and the ready buffer.
func (e *Encoder) AllocateMemory() error {
	if !e.made() {
		return notMade("AllocateMemory")
	}
	return e.life.Allocate(func(mem *memory.Memory) error {
		e.mem = mem
		e.ready = make([]byte, mem.Size())
		return nil
	})
}

// GetSignalMemoryBuffer returns the bytes of signal i in signal memory
// (after AllocateMemory or Start, before Close).
func (e *Encoder) GetSignalMemoryBuffer(i int) ([]byte, error) {
	if !e.made() {
		return nil, notMade("GetSignalMemoryBuffer")
	}
	return e.life.Buffer(i)
}

// localAddr returns the address the socket is bound to: valid after Open,
// PrepareNextState or Start (the zero AddrPort before).
func (e *Encoder) localAddr() netip.AddrPort {
	if !e.started.Load() {
		return netip.AddrPort{}
	}
	return e.local
}

// openStep binds the socket and builds the emitter with t_us = 0 now; nothing
// is sent before PrepareNextState starts the network thread (the step
// datasource.DataSource describes).
func (e *Encoder) openStep() error { return e.life.Open(e.open) }

func (e *Encoder) open() error {
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{Port: e.cfg.SrcPort})
	if err != nil {
		return fmt.Errorf("src_port %d: %w", e.cfg.SrcPort, err)
	}
	if err := e.openWatch(conn); err != nil {
		conn.Close()
		return err
	}
	e.conn = conn
	e.local = conn.LocalAddr().(*net.UDPAddr).AddrPort()
	e.origin = monoNow()
	e.tZero.Store(e.origin)
	e.em = newEmitter(e)
	e.logCh = make(chan event, logQueue)
	e.logDone = make(chan struct{})
	go e.logEvents()
	e.started.Store(true)
	if e.initial != (degradations{}) {
		// Validated by New: it cannot fail.
		_ = e.apply(e.initial, allKinds, "config", e.origin)
	}
	return nil
}

// PrepareNextState starts the network thread, first binding the socket,
// setting the origin of t_us and applying the initial degradations unless
// Open did.
func (e *Encoder) PrepareNextState() error {
	if !e.made() {
		return notMade("PrepareNextState")
	}
	return e.life.Prepare(e.open, e.startThread, e.unopen)
}

// Start is the Go-shaped start: it allocates signal memory unless
// AllocateMemory did, binds the socket unless Open did, and starts the
// network thread; when ctx is done, the Encoder closes itself (as Close).
// A nil ctx, or one already done, is refused and starts nothing.
func (e *Encoder) Start(ctx context.Context) error {
	if !e.made() {
		return notMade("Start")
	}
	return e.life.Start(ctx, e.AllocateMemory, e.PrepareNextState, e.Close)
}

// unopen undoes open, when the start after it failed.
func (e *Encoder) unopen() {
	e.started.Store(false)
	e.conn.Close()
	e.conn = nil
	close(e.logCh)
	<-e.logDone
}

// startThread starts the network thread on the opened encoder. The
// cadence grid and t_us start now rather than at Open, so the time an
// application spends opening its other sockets is not a missed tick.
func (e *Encoder) startThread() error {
	now := monoNow()
	e.origin = now
	e.tZero.Store(now)
	e.em.origin, e.em.target = now, now
	th, err := netthread.Start(netthread.Config{Name: e.cfg.Name, CPUMask: e.cfg.CPUMask, Priority: e.cfg.Priority}, e.em.loop)
	if err != nil {
		return fmt.Errorf("network thread: %w", err)
	}
	e.thread = th
	e.log.Info("RD100S encoder emitting", "spec", spec, "dest", e.dst.String(), "source", e.localAddr().String(),
		"rate_hz", e.cfg.RateHz, "first_seq", e.cfg.FirstSeq, "cpu_mask", e.cfg.CPUMask.String(), "priority", e.cfg.Priority)
	return nil
}

// Synchronise publishes signal memory to the network thread: FastLock, copy
// to the ready buffer, unlock. It never waits for the network; the emitter
// sends the latest published values at its next tick.
func (e *Encoder) Synchronise() error {
	if !e.made() {
		return errSynchroniseNotMade
	}
	if err := e.life.Ready(); err != nil {
		return err
	}
	e.m.synchronised.Inc()
	if e.lock.FastLock(e.lockTimeout, 0) != nil {
		e.m.lockTimeouts.Inc()
		return errLockTimeout
	}
	copy(e.ready, e.mem.Block())
	e.haveData = true
	e.lock.FastUnLock()
	return nil
}

// Close stops the network thread, closes the socket and unregisters the
// metrics, so an Encoder of the same name can be made again with the same
// metrics set. Packets held by the reorder window are dropped. It may be
// called from any goroutine, in any state; a second Close does nothing and
// returns nil. Every other call then returns datasource.ErrClosed,
// Synchronise and Set included.
func (e *Encoder) Close() error {
	if !e.made() {
		return notMade("Close")
	}
	return e.life.Close(e.close)
}

func (e *Encoder) close(lifecycle.State) error {
	defer e.m.reg.Unregister()
	if !e.started.Load() {
		return nil
	}
	e.stopped.Store(true)
	if e.thread != nil {
		if err := e.thread.Stop(); err != nil {
			// The thread is blocked and may yet record an event: its log
			// channel stays open, so that it never sends on a closed one.
			e.conn.Close()
			return err
		}
	}
	e.conn.Close()
	close(e.logCh)
	<-e.logDone
	e.log.Info("RD100S encoder stopped", "next_seq", e.nextSeq.Load(), "packets_sent", e.m.sent.Get())
	return nil
}

func (e *Encoder) running() bool { return e.started.Load() && !e.stopped.Load() }

// tUs returns the emitter clock at mono, in microseconds.
func (e *Encoder) tUs(mono int64) uint64 {
	z := e.tZero.Load()
	if mono <= z {
		return 0
	}
	return uint64(mono-z) / 1000
}

// statusReport is a JSON-friendly snapshot of the encoder for /status
// (docs/status.md names every field).
type statusReport struct {
	Name         string       `json:"name"`
	Class        string       `json:"class"`
	Spec         string       `json:"spec"`
	Dest         string       `json:"dest"`
	Source       string       `json:"source,omitempty"`
	RateHz       float64      `json:"rate_hz"`
	Running      bool         `json:"running"`
	TUs          uint64       `json:"t_us"`     // the emitter clock now
	NextSeq      uint32       `json:"next_seq"` // seq of the next tick
	PacketsSent  uint64       `json:"packets_sent"`
	PacketsLost  uint64       `json:"packets_lost"` // dropped by loss and burst
	Silenced     uint64       `json:"packets_silenced"`
	SendErrors   uint64       `json:"send_errors"`
	TicksMissed  uint64       `json:"ticks_missed"`
	Degraded     bool         `json:"degraded"`
	Active       []string     `json:"active"`
	Degradations degradations `json:"degradations"`
	Events       []event      `json:"events"`
	Synchronised uint64       `json:"synchronised"`
	LockTimeouts uint64       `json:"lock_timeouts"`
	// DestinationUnreachable is true while the destination answers with ICMP
	// port unreachable: no receiver listens there.
	DestinationUnreachable bool `json:"destination_unreachable"`
}

// describe returns one line on the packets for a layout listing
// (streamerd -describe).
func (e *Encoder) describe() string {
	return fmt.Sprintf("%d-byte %s packets to %v at %g Hz", wire.PacketSize, spec, e.dst, e.cfg.RateHz)
}

// snapshot returns a snapshot for /status.
func (e *Encoder) snapshot() statusReport {
	now := monoNow()
	d := e.state()
	s := statusReport{
		Name:         e.cfg.Name,
		Class:        "RD100S",
		Spec:         spec,
		Dest:         e.dst.String(),
		RateHz:       e.cfg.RateHz,
		Running:      e.running(),
		NextSeq:      e.nextSeq.Load(),
		PacketsSent:  e.m.sent.Get(),
		PacketsLost:  e.m.droppedLoss.Get() + e.m.droppedBurst.Get(),
		Silenced:     e.m.silenced.Get(),
		SendErrors:   e.m.sendErrors.Get(),
		TicksMissed:  e.m.ticksMissed.Get(),
		Degraded:     d.anyActive(),
		Active:       d.activeKeys(),
		Degradations: d,
		Events:       e.events(),
		Synchronised: e.m.synchronised.Get(),
		LockTimeouts: e.m.lockTimeouts.Get(),

		DestinationUnreachable: e.m.unreachable.Get() != 0,
	}
	if s.Active == nil {
		s.Active = []string{}
	}
	if e.started.Load() {
		s.Source = e.localAddr().String()
		s.TUs = e.tUs(now)
	}
	return s
}
