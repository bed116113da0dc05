package udpstreamer

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/internal/handoff"
	"github.com/streamerd/streamerd/datasource/internal/lifecycle"
	"github.com/streamerd/streamerd/datasource/internal/memory"
	"github.com/streamerd/streamerd/datasource/internal/sendpath"
	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
	"github.com/streamerd/streamerd/netthread"
	"github.com/streamerd/streamerd/rt/cpu"
	"github.com/streamerd/streamerd/rt/rtsync"
)

// errLockTimeout is returned by Synchronise when the FastLock could not be
// taken within 100 µs and every slot for cycles held back was full: the
// oldest held cycle is dropped and counted as skipped.
var errLockTimeout = fmt.Errorf("udpstreamer: FastLock timeout in Synchronise: %w", datasource.ErrCycleSkipped)

var _ datasource.DataSource = (*Streamer)(nil)

// Streamer is a UDPStreamer datasource. Its methods follow the
// datasource.DataSource contract (docs/embedding.md): Synchronise from the
// RT thread only; Close from any goroutine; the rest from the goroutine
// that builds and stops the application. Every call out of order returns
// an error (datasource.ErrNotAllocated, ErrStarted, ErrClosed...).
type Streamer struct {
	life  lifecycle.Lifecycle
	cfg   Config
	sigs  []datasource.Signal
	infos []frame.SignalInfo
	log   *slog.Logger
	m     *streamerMetrics

	mem   *memory.Memory
	epoch time.Time // origin of the CLOCK_MONOTONIC stamps Synchronise takes
	clock struct {  // what rawStamp reads: CLOCK_MONOTONIC ns since epoch, CLOCK_MONOTONIC_RAW ns
		mono func() int64
		raw  func() uint64
	}

	// RT ↔ network hand-off, guarded by lock. The RT thread copies signal
	// memory into a slot of the ring; the network thread swaps the oldest
	// waiting slot for taken. Both hold the DATA payload before
	// quantisation: room for the hrtTimestamp, then signal memory.
	_           [cacheLine]byte
	lock        rtsync.FastLock
	lockTimeout time.Duration // Synchronise's wait for lock
	ring        cycleRing
	_           [cacheLine]byte
	// sem is the network thread's event: its paced wait spins reading it,
	// so it has a cache line of its own, and the RT thread's writes to the
	// lock and the ring do not hand their line to the spinner and back.
	sem     rtsync.EventSem
	_       [cacheLine]byte
	handOff handoff.Size      // the ring's depth and what it covers
	wait    *netthread.Waiter // the network thread's wait for sem
	// peak is the most cycles that have waited in the ring at once, for
	// /status; peakRT is the RT thread's own copy, so it stores only when
	// the ring gets deeper than ever.
	peak   atomic.Int64
	peakRT int
	// held are the cycles Synchronise could not publish because the
	// network thread held the FastLock (preempted in the nanoseconds it
	// holds it), oldest at heldHead: the RT thread keeps them, with their
	// stamps and gaps, and publishes them before the next cycle it can.
	// RT thread only.
	held      [][]byte
	heldStamp []int64
	heldGap   []uint32
	heldHead  int
	heldN     int

	// Network thread state. wire holds the datagrams of one DATA update
	// back to back: serialise writes the payload into it around the header
	// gaps, piece by piece, and the headers follow once the counter is known.
	taken       []byte
	pieces      []piece
	dataLayout  frame.Layout
	wire        []byte
	cfgLayout   frame.Layout
	cfgWire     []byte // the CONFIG datagrams, built once; headers per send
	sender      *sendpath.Sender
	client      netip.AddrPort // zero when no session
	counter     uint32         // DATA counter of the session
	rawOff      int64          // CLOCK_MONOTONIC_RAW minus stamp clock, per drain
	rawOffFresh bool           // rawOff was read in this drain
	lastHRT     uint64         // hrtTimestamp of the last update sent
	cfgCounter  uint32
	stopping    atomic.Bool
	sendLat     *rtsync.SampleRing  // Synchronise to sent, ns, per update
	skips       rtsync.StampRing    // when cycles were skipped, cpu.Now ns (forensics.go)
	tap         atomic.Pointer[tap] // the in-process reader, if open

	conn     *net.UDPConn
	local    netip.AddrPort     // where conn is bound; guarded by statusMu
	recvErrQ *sendpath.ErrQueue // ICMP errors, read by the receive goroutine
	netErrQ  *sendpath.ErrQueue // the same queue, read by the network thread
	onICMPFn func(sendpath.ICMPError)
	heard    atomic.Int64 // when the client last sent a datagram, ns since epoch
	sessLog  logLimiter   // network thread only
	control  chan controlEvent
	thread   *netthread.Thread
	recvDone chan struct{}

	statusMu sync.Mutex // guards status and clientCopy, written on session changes
	status   statusReport
	// clientCopy is the session's client for the receive goroutine.
	clientCopy netip.AddrPort

	// beforeTake, when set by a test before PrepareNextState, runs on the
	// network thread before each take: it stands for a busy network thread.
	beforeTake func()
}

// statusReport is a snapshot of the datasource for /status
// (docs/status.md names every field).
type statusReport struct {
	Name       string `json:"name"`
	Class      string `json:"class"`
	Listen     string `json:"listen"`
	Client     string `json:"client,omitempty"`
	Connected  bool   `json:"connected"`
	SendMethod string `json:"send_method"`
	// SendBuffer and ReceiveBuffer are the socket's buffers as the kernel
	// granted them, in bytes.
	SendBuffer    int    `json:"send_buffer_bytes"`
	ReceiveBuffer int    `json:"receive_buffer_bytes"`
	Since         string `json:"since,omitempty"`
	// HandOffDepth is the depth of the hand-off ring, HandOffAuto whether
	// it was chosen by time, and HandOffCoversMs the time its cycles
	// last at the period it was sized for, in ms.
	HandOffDepth    int     `json:"hand_off_depth"`
	HandOffAuto     bool    `json:"hand_off_auto"`
	HandOffCoversMs float64 `json:"hand_off_covers_ms"`
	// HandOffPeak is the most cycles that have waited in the ring at once
	// since the start: a ring whose peak reaches its depth has dropped
	// cycles, one whose peak stays well below it is deep enough.
	HandOffPeak int `json:"hand_off_peak"`
	// NetworkWait is how the network thread waits for a cycle (paced,
	// spin or park), and NetworkWakeups how many Synchronise calls found
	// it asleep and woke it with a system call.
	NetworkWait    string `json:"network_wait"`
	NetworkWakeups uint64 `json:"network_wakeups"`
}

// New validates cfg and returns a Streamer. Its metrics are registered in
// ms, named streamerd_udpstreamer_<metric>{datasource="<Name>"} (a nil ms:
// a private set, which Metrics returns); Close unregisters them. New
// refuses a name whose metrics ms already holds, from a producer not yet
// closed. log receives one line per session change (nil: no logging).
func New(cfg Config, ms *metrics.Set, log *slog.Logger) (*Streamer, error) {
	// The Streamer keeps copies: the caller may change its slices after New.
	cfg.Signals, cfg.AllowedClients = slices.Clone(cfg.Signals), slices.Clone(cfg.AllowedClients)
	if err := Validate(&cfg); err != nil {
		return nil, err
	}
	if !nativeLittleEndian {
		return nil, fmt.Errorf("datasource %q: UDPStreamer needs a little-endian host (raw signals are sent as they lie in memory)", cfg.Name)
	}
	c := cfg.withDefaults()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Streamer{
		sendLat: rtsync.NewSampleRing(sendLatencyRows, 1),
		cfg:     c,
		sigs:    c.Signals,
		infos:   frame.Records(c.Signals),
		log:     log.With("datasource", c.Name),
		m:       newStreamerMetrics(ms, c.Name),
		control: make(chan controlEvent, controlQueue),
		epoch:   time.Now(),

		lockTimeout: lockTimeout,
	}
	s.handOff = c.handOff(slotSize(c.Signals))
	s.wait = netthread.NewWaiter(c.NetworkWait, c.NetworkSpin, c.CyclePeriod)
	s.status = statusReport{Name: c.Name, Class: "UDPStreamer", HandOffDepth: s.handOff.Depth, HandOffAuto: s.handOff.Auto,
		HandOffCoversMs: float64(s.handOff.Covers) / float64(time.Millisecond), NetworkWait: s.wait.Mode().String()}
	s.onICMPFn = s.onICMP
	s.clock.mono = func() int64 { return int64(time.Since(s.epoch)) }
	s.clock.raw = cpu.MonotonicRawNanos
	if err := s.m.reg.Err(); err != nil {
		s.m.reg.Unregister()
		return nil, fmt.Errorf("datasource %q: %w", c.Name, err)
	}
	s.life.Init(c.Name, c.Signals)
	return s, nil
}

// made reports whether s came from New: not a nil or zero Streamer, whose
// calls return notMade's errors.
func (s *Streamer) made() bool { return s != nil && s.life.Made() }

// notMade returns the error of op on a Streamer New did not make.
func notMade(op string) error { return lifecycle.NotMade("udpstreamer.Streamer", op) }

// errSynchroniseNotMade is Synchronise's notMade, built once: the RT thread
// does not allocate for it.
var errSynchroniseNotMade = notMade("Synchronise")

// Name returns the datasource name.
func (s *Streamer) Name() string {
	if s == nil {
		return ""
	}
	return s.cfg.Name
}

// Signals returns the configured signals.
func (s *Streamer) Signals() []datasource.Signal {
	if s == nil {
		return nil
	}
	return s.sigs
}

// SignalInfos returns the signals as the CONFIG message describes them.
func (s *Streamer) configRecords() []frame.SignalInfo { return s.infos }

// Metrics returns the set the Streamer's metrics are registered in: the
// one given to New, or its private set (an empty set of its own for a nil
// or zero Streamer).
func (s *Streamer) Metrics() *metrics.Set {
	if s == nil || s.m == nil {
		return metrics.NewSet()
	}
	return s.m.reg.Set()
}

// AllocateMemory allocates signal memory and every buffer of the data path:
// the ready buffers of the hand-off ring (HandOffDepth, or as many as
// chosen by time), the taken buffer, the buffer of a cycle held back by a
// lock timeout and the wire buffers of DATA and CONFIG, and plans how each
// cycle is serialised.
func (s *Streamer) AllocateMemory() error {
	if !s.made() {
		return notMade("AllocateMemory")
	}
	return s.life.Allocate(s.allocate)
}

func (s *Streamer) allocate(mem *memory.Memory) error {
	dataLayout, err := frame.NewLayout(frame.DataPayloadSize(s.infos), s.cfg.MaxPayloadSize)
	if err != nil {
		return err
	}
	pieces, err := planPieces(dataLayout, s.sigs, mem)
	if err != nil {
		return err
	}
	configMsg, err := frame.AppendConfig(nil, s.infos)
	if err != nil {
		return err
	}
	cfgLayout, err := frame.NewLayout(len(configMsg), s.cfg.MaxPayloadSize)
	if err != nil {
		return fmt.Errorf("CONFIG: %w", err)
	}
	s.mem, s.pieces, s.dataLayout, s.cfgLayout = mem, pieces, dataLayout, cfgLayout
	s.ring = newCycleRing(s.handOff.Depth, stampSize+mem.Size())
	s.taken = make([]byte, stampSize+mem.Size())
	k := heldSlots(s.handOff.Depth)
	s.held, s.heldStamp, s.heldGap = make([][]byte, k), make([]int64, k), make([]uint32, k)
	for i := range s.held {
		s.held[i] = make([]byte, stampSize+mem.Size())
	}
	s.wire = make([]byte, dataLayout.WireSize())
	s.cfgWire = make([]byte, cfgLayout.WireSize())
	cfgLayout.PutPayload(s.cfgWire, configMsg)
	return nil
}

// GetSignalMemoryBuffer returns the bytes of signal i in signal memory
// (after AllocateMemory or Start, before Close).
func (s *Streamer) GetSignalMemoryBuffer(i int) ([]byte, error) {
	if !s.made() {
		return nil, notMade("GetSignalMemoryBuffer")
	}
	return s.life.Buffer(i)
}

// LocalAddr returns the address the server socket is bound to: valid
// after Open, PrepareNextState or Start (the zero AddrPort before).
func (s *Streamer) LocalAddr() netip.AddrPort {
	if s == nil {
		return netip.AddrPort{}
	}
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	return s.local
}

// openStep binds the server socket without answering or sending anything
// (the step datasource.DataSource describes).
func (s *Streamer) openStep() error { return s.life.Open(s.open) }

func (s *Streamer) open() error {
	network := "udp"
	var ip netip.Addr
	if s.cfg.Address != "" {
		ip, _ = netip.ParseAddr(s.cfg.Address)
		if ip.Is4() {
			network = "udp4"
		}
	}
	laddr := &net.UDPAddr{IP: ip.AsSlice(), Port: s.cfg.Port}
	conn, err := net.ListenUDP(network, laddr)
	if err != nil {
		return err
	}
	// Room for two whole updates in the kernel while they leave, and for a
	// burst of client datagrams; read back, logged once.
	bufs, err := netthread.SetBuffers(conn, max(4<<20, 2*s.dataLayout.WireSize()), 1<<20)
	if err != nil {
		conn.Close()
		return fmt.Errorf("socket buffers: %w", err)
	}
	sender, err := sendpath.NewSender(conn, s.cfg.SendMethod)
	if err == nil {
		s.recvErrQ, err = sendpath.EnableICMPErrors(conn)
	}
	if err == nil {
		s.netErrQ, err = sendpath.EnableICMPErrors(conn)
	}
	if err != nil {
		conn.Close()
		return err
	}
	s.conn, s.sender = conn, sender
	s.statusMu.Lock()
	s.local = conn.LocalAddr().(*net.UDPAddr).AddrPort()
	s.status.Listen = s.local.String()
	s.status.SendMethod = sender.Method().String()
	s.status.SendBuffer, s.status.ReceiveBuffer = bufs.SendGot, bufs.RecvGot
	s.statusMu.Unlock()
	bufs.Log(s.log, "server", s.dataLayout.WireSize())
	return nil
}

// PrepareNextState starts the receive goroutine and the network thread,
// binding the server socket first unless Open did.
func (s *Streamer) PrepareNextState() error {
	if !s.made() {
		return notMade("PrepareNextState")
	}
	return s.life.Prepare(s.open, s.start, s.unopen)
}

// Start is the Go-shaped start: it allocates signal memory unless
// AllocateMemory did, binds the socket unless Open did, and starts the
// network thread; when ctx is done, the Streamer closes itself (as Close).
// A nil ctx, or one already done, is refused and starts nothing.
func (s *Streamer) Start(ctx context.Context) error {
	if !s.made() {
		return notMade("Start")
	}
	return s.life.Start(ctx, s.AllocateMemory, s.PrepareNextState, s.Close)
}

// unopen closes the socket open bound, when the start after it failed.
func (s *Streamer) unopen() {
	s.conn.Close()
	s.conn = nil
}

// start starts the network thread and then the receive goroutine on the
// bound socket; when the thread cannot start, nothing has.
func (s *Streamer) start() error {
	th, err := netthread.Start(netthread.Config{Name: s.cfg.Name, CPUMask: s.cfg.CPUMask, Priority: s.cfg.Priority, Wake: s.sem.Post}, s.serve)
	if err != nil {
		return fmt.Errorf("network thread: %w", err)
	}
	s.thread = th
	s.recvDone = make(chan struct{})
	go s.receive()
	s.log.Info("UDPStreamer listening", "address", s.status.Listen, "send_method", s.sender.Method().String(),
		"payload_bytes", s.dataLayout.Payload, "fragments", s.dataLayout.Fragments, "cpu_mask", s.cfg.CPUMask.String(),
		"priority", s.cfg.Priority, "hand_off", s.handOff.String(), "network_wait", s.wait.Mode().String(),
		"network_spin", s.cfg.NetworkSpin.String())
	return nil
}

// Synchronise publishes signal memory to the network thread: FastLock, copy
// into the next slot of the hand-off ring, capture the hrtTimestamp,
// unlock, post. It never waits for the network; when every slot of the
// ring holds a cycle the network thread has not taken yet, the oldest is
// overwritten and counted as skipped. A post that finds the network
// thread asleep wakes it (a system call) and is counted in
// network_wakeups_total.
//
// If the FastLock cannot be taken within LockTimeout (the network thread
// was preempted in the nanoseconds it holds it), the cycle is kept on the
// RT side and published, in order, before the next cycle that takes the
// lock; counted in lock_timeouts_total. The RT side keeps up to
// heldSlots of them (32 at the default 500-cycle ring): only a timeout
// with every slot full drops one, the oldest (counted as skipped,
// datasource.ErrCycleSkipped).
//
// Every call ends in exactly one of the counters cycles_skipped
// (overwritten, or replaced while held), cycles_without_client,
// updates_sent or send_errors{kind="data"}, except the cycles waiting in
// the ring (at most its depth) or held: so synchronise_total = skipped +
// without_client + updates_sent + data send errors + waiting.
func (s *Streamer) Synchronise() error {
	if !s.made() {
		return errSynchroniseNotMade
	}
	return s.synchroniseAfterGap(0)
}

// synchroniseAfterGap is Synchronise for a cycle that follows lost updates:
// the network thread advances the DATA counter by lost before it sends
// this cycle, so a client counts lost updates missing there (Update.Lost)
// and breaks its traces, as after a loss on the network. A replay uses it
// to keep the gaps of a recording. The gap is kept when the cycle is
// overwritten (it passes to the next cycle sent) and is not applied while
// no client is connected. Same contract and cost as Synchronise.
func (s *Streamer) synchroniseAfterGap(lost uint32) error {
	if err := s.life.Ready(); err != nil {
		return err
	}
	s.m.synchronised.Inc()
	stamp := int64(time.Since(s.epoch))
	if s.lock.FastLock(s.lockTimeout, 0) != nil {
		s.m.lockTimeouts.Inc()
		var err error
		k := len(s.held)
		if s.heldN == k { // every slot full: drop the oldest held cycle
			s.m.skipped.Inc() // a cycle dropped at the hand-off
			s.skips.Stamp(cpu.Now())
			gap := s.heldGap[s.heldHead]
			s.heldHead, s.heldN = (s.heldHead+1)%k, s.heldN-1
			if s.heldN > 0 { // its gap passes to the next cycle sent
				s.heldGap[s.heldHead] += gap
			} else {
				lost += gap
			}
			err = errLockTimeout
		}
		i := (s.heldHead + s.heldN) % k
		copy(s.held[i][stampSize:], s.mem.Block())
		s.heldStamp[i], s.heldGap[i] = stamp, lost
		s.heldN++
		return err
	}
	dropped := 0
	for ; s.heldN > 0; s.heldN-- {
		i := s.heldHead
		dropped += s.publish(s.held[i][stampSize:], s.heldStamp[i], s.heldGap[i])
		s.heldHead = (i + 1) % len(s.held)
	}
	dropped += s.publish(s.mem.Block(), stamp, lost)
	s.lock.FastUnLock()
	if dropped > 0 {
		s.m.skipped.Add(dropped) // cycles dropped at the hand-off: overwritten in a full ring
		s.skips.Stamp(cpu.Now())
	}
	if s.sem.PostWoke() {
		s.m.wakeups.Inc()
	}
	return nil
}

// heldSlots is how many cycles a lock timeout may hold back on the RT side
// for a ring of depth cycles: a sixteenth of the ring, 1 to 32, so the
// held cycles take at most about a sixteenth more memory than the ring.
func heldSlots(depth int) int { return min(max(depth/16, 1), 32) }

// publish puts one cycle (signal memory src, its stamp and gap) into the
// next slot of the ring, under the FastLock, and returns 1 when it
// overwrote the oldest waiting cycle, else 0.
func (s *Streamer) publish(src []byte, stamp int64, gap uint32) int {
	i, overwrote, carry := s.ring.put()
	if n := s.ring.waiting(); n > s.peakRT {
		s.peakRT = n
		s.peak.Store(int64(n))
	}
	copy(s.ring.slots[i][stampSize:], src)
	s.ring.stamps[i] = stamp
	s.ring.gaps[i] = gap + carry
	if overwrote {
		return 1
	}
	return 0
}

// waiting returns the cycles published by Synchronise that the network
// thread has not taken yet (at most the ring's depth): a caller that
// must not overwrite cycles (a replay sent as fast as it goes) publishes
// only while it is below that depth. Any goroutine; it takes the FastLock.
func (s *Streamer) waiting() int {
	s.lock.FastLock(rtsync.Forever, 0)
	n := s.ring.waiting()
	s.lock.FastUnLock()
	return n
}

// Close stops the network thread and the receive goroutine, closes the
// socket and unregisters the metrics, so a Streamer of the same name can
// be made again with the same metrics set. It may be called from any
// goroutine, in any state; a second Close does nothing and returns nil.
// Every other call then returns datasource.ErrClosed, Synchronise
// included (still without allocating). A connected client is not told; it
// sees the stream end. An open tap is closed: a reader waiting on it
// returns.
func (s *Streamer) Close() error {
	if !s.made() {
		return notMade("Close")
	}
	return s.life.Close(s.close)
}

func (s *Streamer) close(lifecycle.State) error {
	defer s.m.reg.Unregister()
	// Once the network thread has stopped, a reader waiting on the tap
	// returns errTapClosed instead of waiting for updates that will not come.
	defer func() {
		if t := s.tap.Load(); t != nil {
			t.Close()
		}
	}()
	if s.conn == nil {
		return nil
	}
	s.stopping.Store(true)
	s.sem.Post()
	var err error
	if s.thread != nil {
		err = s.thread.Stop()
	}
	s.conn.Close()
	if s.recvDone != nil {
		<-s.recvDone
	}
	s.log.Info("UDPStreamer stopped", "updates_sent", s.m.updates.Get(), "cycles_skipped", s.m.skipped.Get(), "connects", s.m.connects.Get())
	return err
}

// snapshot returns a snapshot for /status.
func (s *Streamer) snapshot() statusReport {
	s.statusMu.Lock()
	st := s.status
	s.statusMu.Unlock()
	st.NetworkWakeups = s.m.wakeups.Get()
	st.HandOffPeak = int(s.peak.Load())
	return st
}

// describe returns one line on the DATA datagrams for a layout listing
// (streamerd -describe); valid after AllocateMemory.
func (s *Streamer) describe() string {
	return fmt.Sprintf("DATA payload: %d bytes in %d fragment(s) of at most %d bytes (MaxPayloadSize %d), port %d; hand-off ring: %v; network wait: %v",
		s.dataLayout.Payload, s.dataLayout.Fragments, s.dataLayout.Chunk, s.cfg.MaxPayloadSize, s.cfg.Port, s.handOff, s.wait.Mode())
}

// waitTimeout bounds one wait of the network thread. Whatever gives it
// work posts its EventSem (a cycle, a session change, a tap, Close), so
// the bound only covers a Post that never came; an idle producer wakes
// once a second.
const waitTimeout = time.Second

// serve is the network thread's loop.
func (s *Streamer) serve(stop <-chan struct{}) {
	for {
		_ = s.wait.Wait(&s.sem, waitTimeout)
		select {
		case <-stop:
			return
		default:
		}
		if s.stopping.Load() {
			return
		}
		s.applyControl()
		if s.beforeTake != nil {
			s.beforeTake()
		}
		s.drain()
	}
}

// drain sends the cycles waiting in the ring, oldest first, each its own
// DATA update; at most the ring's depth of them, so session changes and a stop
// are served between two drains however fast the RT thread publishes.
func (s *Streamer) drain() {
	s.rawOffFresh = false
	for range s.handOff.Depth {
		if !s.takeAndSend() {
			return
		}
	}
	s.sem.Post() // more may wait: come back after the session changes
}

// takeAndSend takes the oldest waiting cycle, if any, and sends it to the
// client. It reports whether there was one.
func (s *Streamer) takeAndSend() bool {
	s.lock.FastLock(rtsync.Forever, 0)
	taken, stamp, gap, ok := s.ring.takeGap(s.taken)
	s.lock.FastUnLock()
	if !ok {
		return false
	}
	s.taken = taken
	tap := s.tap.Load()
	if !s.client.IsValid() && tap == nil {
		s.m.noClient.Inc()
		return true
	}
	binary.LittleEndian.PutUint64(s.taken, s.hrtStamp(stamp))
	s.serialise()
	if tap != nil {
		tap.offer(s.wire, s.dataLayout)
	}
	if !s.client.IsValid() {
		s.m.noClient.Inc()
		return true
	}
	s.counter += gap
	s.dataLayout.PutHeaders(s.wire, frame.Data, s.counter)
	s.counter++
	n, err := s.sender.Send(s.wire, s.dataLayout.SegmentSize())
	s.m.fragments.Add(n)
	if n == s.dataLayout.Fragments {
		s.m.bytes.Add(len(s.wire))
	}
	if err != nil {
		s.m.sendErrors.Inc()
		s.sendFailed(err)
		return true
	}
	s.m.updates.Inc()
	s.recordSendLatency(stamp)
	return true
}

// sendLatencyRows is how many updates the send-latency ring holds: half a
// second at 64 k updates/s.
const sendLatencyRows = 1 << 15

// recordSendLatency records the time from the Synchronise that published
// an update to the return of its send, for the daemon's timings
// (Internals).
func (s *Streamer) recordSendLatency(stamp int64) {
	row := s.sendLat.Row()
	row[0].Store(int64(time.Since(s.epoch)) - stamp)
	s.sendLat.Publish()
}

// rawOffset returns CLOCK_MONOTONIC_RAW minus the Streamer's
// CLOCK_MONOTONIC-since-epoch, now: what converts the stamps Synchronise
// takes to the hrtTimestamp's clock. The RT thread reads CLOCK_MONOTONIC
// through the vDSO (about 30 ns); CLOCK_MONOTONIC_RAW has no vDSO path in Go
// and costs a system call (about 270 ns), which the network thread pays
// here instead, once per drain that sends: every cycle of a drain is converted with
// the same offset, so their order and spacing are kept exactly. The two
// clocks differ only in NTP's frequency slew since the stamp (microseconds
// at most).
//
// The pair is the RAW read bracketed by two CLOCK_MONOTONIC reads, taken at
// the bracket's midpoint: a preemption inside the bracket widens it rather
// than shifting the result unseen, so a bracket wider than rawPairTight is
// read again, up to rawPairTries times, and the tightest one kept. The
// offset is right to within half that bracket.
func rawOffset(monoNow func() int64, rawNow func() uint64) int64 {
	var raw uint64
	var at, width int64 = 0, math.MaxInt64
	for range rawPairTries {
		m0 := monoNow()
		r := rawNow()
		m1 := monoNow()
		if m1-m0 < width {
			raw, at, width = r, m0+(m1-m0)/2, m1-m0
		}
		if width <= int64(rawPairTight) {
			break
		}
	}
	return int64(raw) - at
}

// hrtStamp converts the stamp of a taken cycle to its hrtTimestamp with
// the drain's offset, strictly after the previous one of the session, so
// a client always sees time move forward even across two drains whose
// offsets differ by their brackets' error.
func (s *Streamer) hrtStamp(mono int64) uint64 {
	if !s.rawOffFresh {
		s.rawOff, s.rawOffFresh = rawOffset(s.clock.mono, s.clock.raw), true
	}
	raw := uint64(mono + s.rawOff)
	if raw <= s.lastHRT && s.lastHRT != 0 {
		raw = s.lastHRT + 1
	}
	s.lastHRT = raw
	return raw
}

// rawPairTight and rawPairTries bound rawStamp's readings: a bracket of a
// few system calls is tight; a preempted one is tens of µs wide.
const (
	rawPairTight = 2 * time.Microsecond
	rawPairTries = 4
)
