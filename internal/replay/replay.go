// Package replay serves a recording as a live UDPStreamer stream: a udpstreamer.Streamer with the recording's signal list, fed by a pacing thread at the recorded pace, a chosen speed or flat out.
//
// Usage:
//
//  1. r, err := replay.New(path, replay.Options{Server: udpstreamer.Config{Port: 44500}, Speed: 1}, ms, log)
//     opens and checks the recording (internal/record) and builds the
//     Streamer with its CONFIG: names, types, units, ranges, quantisation.
//  2. r.AllocateMemory, then r.PrepareNextState (or r.Start for both)
//     opens the socket, starts the Streamer's network thread and the
//     pacing thread.
//  3. r.Done is closed when the recording has been played to its end
//     (never with Loop) or reading it failed (r.Err says why); r.Close
//     stops both threads.
//
// A Replay is a datasource.DataSource (with Open) whose Synchronise does
// nothing: its own pacing thread writes signal memory and synchronises, so
// an application can list it beside its other producers.
//
// The pacing thread plays each row at the time of its producer's clock
// (the UDPStreamer hrtTimestamp, the RD100S t_us; the receive time for
// FlatUDP, or where the producer's clock jumps), divided by Speed, from
// absolute CLOCK_MONOTONIC deadlines. A row recorded after lost updates
// is synchronised with SynchroniseAfterGap, so a client sees the same
// loss there: gaps stay gaps. A row waits for a free slot of the
// Streamer's hand-off ring, so none is ever overwritten: a network thread
// that stalls delays the rows, and flat out (Speed 0) that wait is the
// only pace. A reader goroutine
// decodes rows into a few preallocated batches ahead of the pacing thread;
// in steady state neither allocates for the rows they pass.
package replay

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/record"
	"github.com/streamerd/streamerd/netthread"
	"github.com/streamerd/streamerd/rt/cpu"
)

// Bounds and defaults of Options.
const (
	MinSpeed            = 0.1
	MaxSpeed            = 10
	DefaultName         = "Replay"
	DefaultHandOffDepth = 64
)

// Options configures a Replay. The zero value of a field means its
// default, except Speed (0: flat out).
type Options struct {
	// Server configures the UDPStreamer that serves the recording, as for
	// a live one: its Name (DefaultName when ""), Address ("" binds every
	// address), Port (0: a free port), AllowedClients, HandOffDepth
	// (DefaultHandOffDepth when 0), MaxPayloadSize, session policy and
	// network thread. Its Signals are the recording's: New refuses any.
	Server udpstreamer.Config
	// Speed plays the recording this many times faster than it was
	// recorded (MinSpeed..MaxSpeed); 0 plays it flat out.
	Speed float64
	// Loop plays the recording again from its first row after its last.
	Loop bool
	// WaitClient holds the first row until a client holds the session, so
	// it sees the recording from its start.
	WaitClient bool
	// PacingCPUMask pins the pacing thread (0: unpinned); PacingPriority
	// runs it under SCHED_FIFO at this priority (1..99; 0: normal
	// scheduling).
	PacingCPUMask  cpu.Mask
	PacingPriority int
}

// Validate checks opts as New does, without the recording: every broken
// rule is a *datasource.ConfigError naming its field (Speed,
// PacingPriority, Signals), joined.
func Validate(opts *Options) error {
	name := cmp.Or(opts.Server.Name, DefaultName)
	var errs []error
	param := func(p, format string, args ...any) {
		errs = append(errs, &datasource.ConfigError{DataSource: name, Index: -1, Parameter: p, Rule: fmt.Sprintf(format, args...)})
	}
	if opts.Speed != 0 && !(opts.Speed >= MinSpeed && opts.Speed <= MaxSpeed) {
		param("Speed", "want %v to %v, or 0 for flat out, got %v", MinSpeed, MaxSpeed, opts.Speed)
	}
	if cpu.ValidatePriority(opts.PacingPriority) != nil {
		param("PacingPriority", "%v", cpu.ValidatePriority(opts.PacingPriority))
	}
	if len(opts.Server.Signals) > 0 {
		param("Signals", "the signals of a replay are its recording's; give none")
	}
	return errors.Join(errs...)
}

// withDefaults fills in the defaults of the fields left zero.
func (o Options) withDefaults() Options {
	o.Server.Name = cmp.Or(o.Server.Name, DefaultName)
	o.Server.HandOffDepth = cmp.Or(o.Server.HandOffDepth, DefaultHandOffDepth)
	return o
}

// Stats count what a Replay played.
type Stats struct {
	Rows  uint64 `json:"rows"`  // rows synchronised
	Lost  uint64 `json:"lost"`  // updates the rows' gaps declared lost
	Loops uint64 `json:"loops"` // times the recording was played to its end
	Late  uint64 `json:"late"`  // rows the pacing thread came to more than their interval late, which then moved its clock
	// Shortened counts the gaps between two rows longer than a minute,
	// played as a minute.
	Shortened uint64 `json:"shortened"`
	// Position is the rows of the current pass synchronised: the row of
	// the recording played last, from 1; 0 before the first.
	Position uint64 `json:"position"`
	// PositionTime is the recording's time from its first row to the row
	// played last, as the pacing counts it (the producer's clock).
	PositionTime time.Duration `json:"-"`
}

// Replay plays a recording through a UDPStreamer. Its DataSource methods
// follow the contract (from the goroutine that builds the application);
// Done, Err, Stats and Streamer may be called from any goroutine.
type Replay struct {
	opts    Options
	path    string
	numRows int64
	layout  *record.Layout
	s       *udpstreamer.Streamer
	p       pacer // s's Internals
	log     *slog.Logger
	sigs    []datasource.Signal
	pace    paceColumns

	feed *feeder
	bufs [][]byte // each signal's bytes in the Streamer's memory

	mu      sync.Mutex // guards file, thread and stopped: Close may come from any goroutine
	file    *record.File
	thread  *netthread.Thread
	stopped bool

	done    chan struct{}
	errOnce sync.Once
	err     error

	rows, lost, loops, late atomic.Uint64
	shortened               atomic.Uint64 // the feeder's
	pos                     atomic.Uint64 // rows of the current pass
	posTime                 atomic.Int64  // ns of the recording into the current pass
}

// pacer is what a Replay uses of its Streamer beyond the DataSource
// contract, from udpstreamer's Internals: how many cycles wait for the
// network thread, the publication of a row after lost updates, the
// session's client, the Streamer's /status and -describe line, its Open
// step.
type pacer interface {
	Waiting() int
	SynchroniseAfterGap(lost uint32) error
	Client() netip.AddrPort
	StatusReport() any
	Describe() string
	Open() error
}

// New opens the recording at path, checks it and builds the Streamer that
// serves it. A file that is not a recording, or is cut short or corrupt,
// gives an error naming it and what is wrong. The file is closed again:
// PrepareNextState opens it to play it, so a Replay built and never
// started holds no file.
func New(path string, opts Options, ms *metrics.Set, log *slog.Logger) (*Replay, error) {
	if err := Validate(&opts); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	opts = opts.withDefaults()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	f, err := record.Open(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	f.Close()
	if opts.Loop && f.NumRows == 0 {
		return nil, fmt.Errorf("replay: %s: Loop: the recording has no rows to play again", path)
	}
	l := f.Layout
	sigs := slices.Clone(l.Signals)
	cfg := opts.Server
	cfg.Signals = sigs
	s, err := udpstreamer.New(cfg, ms, log)
	if err != nil {
		return nil, fmt.Errorf("replay: %s: its signal list cannot be served: %w", path, err)
	}
	p, ok := s.Internals().(pacer)
	if !ok {
		s.Close()
		return nil, fmt.Errorf("replay: %s: the Streamer cannot be paced", path)
	}
	return &Replay{opts: opts, path: path, numRows: f.NumRows, layout: l, s: s, p: p, log: log.With("replay", path), sigs: sigs,
		pace: paceColumnsOf(l), done: make(chan struct{})}, nil
}

// sameLayout reports whether a and b have the same signals and columns.
func sameLayout(a, b *record.Layout) bool {
	return a.Format == b.Format && slices.Equal(a.Signals, b.Signals) && slices.Equal(a.Columns, b.Columns)
}

// Inspect opens the recording at path, checks it as New does, and
// returns the signals a Replay of it serves and its number of rows. It
// reads the file's footer, not its rows.
func Inspect(path string) ([]datasource.Signal, int64, error) {
	f, err := record.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	return slices.Clone(f.Layout.Signals), f.NumRows, nil
}

// Streamer returns the Streamer that serves the recording.
func (r *Replay) Streamer() *udpstreamer.Streamer { return r.s }

// Layout returns the recording's layout.
func (r *Replay) Layout() *record.Layout { return r.layout }

// Name returns the datasource name.
func (r *Replay) Name() string { return r.opts.Server.Name }

// Signals returns the recording's signals as the Streamer serves them.
func (r *Replay) Signals() []datasource.Signal { return r.sigs }

// AllocateMemory allocates the Streamer's memory and the reader's batches.
func (r *Replay) AllocateMemory() error {
	if err := r.s.AllocateMemory(); err != nil {
		return err
	}
	r.feed = newFeeder(r.layout, r.pace, r.s.Signals(), r.opts.Loop)
	r.feed.shortened = &r.shortened
	r.bufs = make([][]byte, len(r.s.Signals()))
	for i := range r.bufs {
		b, err := r.s.GetSignalMemoryBuffer(i)
		if err != nil {
			return err
		}
		r.bufs[i] = b
	}
	return nil
}

// GetSignalMemoryBuffer returns the bytes of signal i in signal memory.
func (r *Replay) GetSignalMemoryBuffer(i int) ([]byte, error) { return r.s.GetSignalMemoryBuffer(i) }

// Open binds the Streamer's socket.
func (r *Replay) Open() error { return r.p.Open() }

// PrepareNextState opens the recording again (refusing it if it changed
// since New), starts the Streamer, the reader and the pacing thread.
func (r *Replay) PrepareNextState() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := r.opts.Server.Name
	switch {
	case r.feed == nil:
		return fmt.Errorf("datasource %q: %w", name, datasource.ErrNotAllocated)
	case r.thread != nil:
		return fmt.Errorf("datasource %q: %w", name, datasource.ErrStarted)
	case r.stopped:
		return fmt.Errorf("datasource %q: %w", name, datasource.ErrClosed)
	}
	f, err := record.Open(r.path)
	if err != nil {
		return fmt.Errorf("datasource %q: replay: %w", name, err)
	}
	if !sameLayout(f.Layout, r.layout) || f.NumRows != r.numRows {
		f.Close()
		return fmt.Errorf("datasource %q: replay: %s changed since it was checked (%d rows then, %d now, or other signals)", name, r.path, r.numRows, f.NumRows)
	}
	if err := r.s.PrepareNextState(); err != nil {
		f.Close()
		return err
	}
	r.feed.start(f)
	th, err := netthread.Start(netthread.Config{Name: name + "-pace", CPUMask: r.opts.PacingCPUMask, Priority: r.opts.PacingPriority}, r.play)
	if err != nil {
		r.feed.stop()
		r.s.Close()
		f.Close()
		r.stopped = true
		return fmt.Errorf("datasource %q: pacing thread: %w", name, err)
	}
	r.file, r.thread = f, th
	r.log.Info("replaying", "address", r.s.LocalAddr().String(), "rows", r.numRows, "format", r.layout.Format,
		"speed", speedText(r.opts.Speed), "loop", r.opts.Loop)
	return nil
}

// Start is AllocateMemory then PrepareNextState; the Replay closes when
// ctx is done. A nil ctx is refused.
func (r *Replay) Start(ctx context.Context) error {
	if ctx == nil {
		return fmt.Errorf("datasource %q: Start: nil context (use context.Background())", r.opts.Server.Name)
	}
	if err := r.AllocateMemory(); err != nil {
		return err
	}
	if err := r.PrepareNextState(); err != nil {
		return err
	}
	if ctx.Done() != nil {
		context.AfterFunc(ctx, func() { _ = r.Close() })
	}
	return nil
}

// Metrics returns the set the Streamer's metrics are registered in.
func (r *Replay) Metrics() *metrics.Set { return r.s.Metrics() }

func speedText(v float64) string {
	if v == 0 {
		return "flat out"
	}
	return fmt.Sprintf("%gx", v)
}

// Synchronise does nothing: the pacing thread synchronises the Streamer.
func (r *Replay) Synchronise() error { return nil }

// Close stops the pacing thread, the reader and the Streamer, and closes
// the file; later calls do nothing. Before PrepareNextState it closes
// what Open opened.
func (r *Replay) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.thread == nil {
		return r.s.Close()
	}
	if r.stopped {
		return nil
	}
	r.stopped = true
	err := r.thread.Stop()
	r.feed.stop()
	if serr := r.s.Close(); err == nil {
		err = serr
	}
	r.file.Close()
	r.finish(nil)
	return err
}

// Done is closed when the recording was played to its end (without
// Loop), when reading it failed, or at Close.
func (r *Replay) Done() <-chan struct{} { return r.done }

// Err returns why the replay ended early: a read error; nil otherwise.
func (r *Replay) Err() error {
	select {
	case <-r.done:
		return r.err
	default:
		return nil
	}
}

func (r *Replay) finish(err error) {
	r.errOnce.Do(func() {
		r.err = err
		close(r.done)
	})
}

// Stats returns the counts.
func (r *Replay) Stats() Stats {
	st := Stats{Rows: r.rows.Load(), Lost: r.lost.Load(), Loops: r.loops.Load(), Late: r.late.Load(),
		Position: r.pos.Load(), PositionTime: time.Duration(r.posTime.Load())}
	st.Shortened = r.shortened.Load()
	return st
}

// ClassReplay is the class a Replay reports in its Status.
const ClassReplay = "Replay"

// Status is the Replay's snapshot for /status: the Streamer's fields (its
// StatusReport) with the class Replay, then the replay's own
// (docs/status.md).
type Status struct {
	Streamer any    `json:"-"`
	Class    string `json:"-"` // in place of the Streamer's
	File     string `json:"file"`
	FileRows int64  `json:"file_rows"`
	Speed    string `json:"speed"`
	Loop     bool   `json:"loop"`
	Stats
	PositionSeconds float64 `json:"position_s"`
	// Finished: the recording was played to its end (never with Loop),
	// reading it failed (Error says why), or the replay was stopped.
	Finished bool   `json:"finished"`
	Error    string `json:"error,omitempty"`
}

// MarshalJSON writes one object: the Streamer's fields, its class
// replaced by Class, then the replay's.
func (s Status) MarshalJSON() ([]byte, error) {
	type own Status // without this method
	a, err := json.Marshal(s.Streamer)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(own(s))
	if err != nil {
		return nil, err
	}
	if len(a) < 2 || a[0] != '{' || len(b) < 2 || b[0] != '{' {
		return nil, fmt.Errorf("replay status: %s and %s are not two objects", a, b)
	}
	if s.Class != "" {
		a = bytes.Replace(a, []byte(`"class":"UDPStreamer"`), []byte(`"class":`+strconv.Quote(s.Class)), 1)
	}
	if len(a) == 2 { // {}
		return b, nil
	}
	return append(append(a[:len(a)-1], ','), b[1:]...), nil
}

// StatusReport returns Status as an any.
func (r *Replay) StatusReport() any {
	st := Status{Streamer: r.p.StatusReport(), Class: ClassReplay, File: r.path, FileRows: r.numRows, Speed: speedText(r.opts.Speed),
		Loop: r.opts.Loop, Stats: r.Stats()}
	st.PositionSeconds = st.PositionTime.Seconds()
	select {
	case <-r.done:
		st.Finished = true
		if r.err != nil {
			st.Error = r.err.Error()
		}
	default:
	}
	return st
}

// Describe returns one line on the datagrams.
func (r *Replay) Describe() string {
	return r.p.Describe() + fmt.Sprintf("; replaying %s (%d rows)", r.path, r.numRows)
}

// pace returns the instant the next row is due at, dt (ns, scaled by the
// speed) after the row before it, which was due at prev, and whether the
// pacing thread is late for it: now is more than dt past that instant (a
// stall: the network thread, the machine). A late row goes now, and the
// rows after it keep their spacing from it: the replay runs longer rather
// than catch up with rows stamped microseconds apart, which a live
// producer never sends.
func pace(prev, dt, now int64) (next int64, late bool) {
	next = prev + dt
	if dt > 0 && now-next > dt { // rows of one instant go together
		return now, true
	}
	return next, false
}

// Bounds of the pacing.
const (
	maxSleep = 50 * time.Millisecond // a sleep is cut to this, to see a stop
	flatWait = 50 * time.Microsecond // flat out, the wait for a free slot
	// maxGap bounds the lost updates of one row passed to the Streamer:
	// half the counter jump a client takes for a restart of the sequence
	// (2^20, docs/udpstreamer.md, "Sequence counters").
	maxGap = 1 << 19
)

// play is the pacing thread.
func (r *Replay) play(stop <-chan struct{}) {
	if r.opts.WaitClient && !r.waitClient(stop) {
		return
	}
	depth := r.opts.Server.HandOffDepth
	next := cpu.MonotonicNanos()
	newPass := true
	for {
		var b *batch
		select {
		case <-stop:
			return
		case b = <-r.feed.full:
		}
		size := r.feed.size
		for j := range b.n {
			if r.opts.Speed > 0 {
				var late bool
				if next, late = pace(next, int64(float64(b.dt[j])/r.opts.Speed), cpu.MonotonicNanos()); late {
					r.late.Add(1)
				}
				if !sleepUntil(next, stop) {
					return
				}
			}
			// Never overwrite a cycle the network thread has not taken:
			// a stalled network thread delays the rows, it skips none.
			for r.p.Waiting() >= depth {
				if !sleepFor(flatWait, stop) {
					return
				}
			}
			row := b.mem[j*size : (j+1)*size]
			for i, buf := range r.bufs {
				copy(buf, row[r.feed.offsets[i]:])
			}
			gap := min(b.gap[j], maxGap)
			r.p.SynchroniseAfterGap(gap)
			r.rows.Add(1)
			if gap != 0 {
				r.lost.Add(uint64(gap))
			}
			if newPass { // the first row's dt paces it after the last row of the pass before
				r.pos.Store(1)
				r.posTime.Store(0)
				newPass = false
			} else {
				r.pos.Add(1)
				r.posTime.Add(b.dt[j])
			}
		}
		err := b.err
		r.feed.free <- b
		switch {
		case err == nil:
		case !errors.Is(err, io.EOF):
			r.log.Error("replay stopped", "error", err)
			r.finish(err)
			return
		default:
			r.loops.Add(1)
			newPass = true
			if !r.opts.Loop {
				r.drain(stop)
				r.log.Info("replay finished", "rows", r.rows.Load())
				r.finish(nil)
				return
			}
		}
	}
}

// waitClient waits until a client holds the session; false on stop.
func (r *Replay) waitClient(stop <-chan struct{}) bool {
	for !r.p.Client().IsValid() {
		if !sleepFor(10*time.Millisecond, stop) {
			return false
		}
	}
	return true
}

// drain waits until the network thread took every cycle published.
func (r *Replay) drain(stop <-chan struct{}) {
	for r.p.Waiting() > 0 {
		if !sleepFor(time.Millisecond, stop) {
			return
		}
	}
}

// sleepUntil sleeps until CLOCK_MONOTONIC reaches abs, in slices of at
// most maxSleep; false when stop closed meanwhile.
func sleepUntil(abs int64, stop <-chan struct{}) bool {
	for {
		select {
		case <-stop:
			return false
		default:
		}
		now := cpu.MonotonicNanos()
		if now >= abs {
			return true
		}
		_ = cpu.SleepUntil(min(abs, now+int64(maxSleep)))
	}
}

func sleepFor(d time.Duration, stop <-chan struct{}) bool {
	return sleepUntil(cpu.MonotonicNanos()+int64(d), stop)
}
