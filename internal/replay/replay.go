// Package replay serves a recording as a live UDPStreamer stream: a udpstreamer.Streamer with the recording's signal list, fed by a pacing thread at the recorded pace, a chosen speed or flat out.
//
// Usage:
//
//  1. r, err := replay.New(path, replay.Options{Port: 44500, Speed: 1}, ms, log)
//     opens and checks the recording (internal/record) and builds the
//     Streamer with its CONFIG: names, types, units, ranges, quantisation.
//  2. r.AllocateMemory, then r.PrepareNextState (or r.Start for both)
//     opens the socket, starts the Streamer's network thread and the
//     pacing thread.
//  3. r.Done is closed when the recording has been played to its end
//     (never with Loop) or reading it failed (r.Err says why); r.Close
//     stops both threads.
//
// A Replay is a datasource.DataSource (an Opener) whose Synchronise does
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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/datasource/udpstreamer/wire"
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
// default, except Port (0: a free port) and Speed (0: flat out).
type Options struct {
	Name    string // datasource name, in logs and metrics; DefaultName when ""
	Address string // local address to bind; "" binds every address
	Port    int
	// Speed plays the recording this many times faster than it was
	// recorded (MinSpeed..MaxSpeed); 0 plays it flat out.
	Speed float64
	// Loop plays the recording again from its first row after its last.
	Loop bool
	// WaitClient holds the first row until a client holds the session, so
	// it sees the recording from its start.
	WaitClient bool
	// HandOffDepth is the Streamer's ring of cycles waiting for its
	// network thread (DefaultHandOffDepth when 0).
	HandOffDepth   int
	AllowedClients []netip.Prefix
	CPUMask        cpu.Mask // pins the pacing thread; 0: unpinned
}

// Stats count what a Replay played.
type Stats struct {
	Rows  uint64 // rows synchronised
	Lost  uint64 // updates the rows' gaps declared lost
	Loops uint64 // times the recording was played to its end
	Late  uint64 // times the pacing thread fell more than a second behind and started its clock again
}

// Replay plays a recording through a UDPStreamer. Its DataSource methods
// follow the contract (from the goroutine that builds the application);
// Done, Err, Stats and Streamer may be called from any goroutine.
type Replay struct {
	opts   Options
	file   *record.File
	layout *record.Layout
	s      *udpstreamer.Streamer
	log    *slog.Logger
	sigs   []datasource.Signal
	pace   paceColumns

	feed    *feeder
	thread  *netthread.Thread
	bufs    [][]byte // each signal's bytes in the Streamer's memory
	done    chan struct{}
	errOnce sync.Once
	err     error
	stopped atomic.Bool

	rows, lost, loops, late atomic.Uint64
}

var _ datasource.Opener = (*Replay)(nil)

// New opens the recording at path and builds the Streamer that serves
// it. A file that is not a recording, or is cut short or corrupt, gives an
// error naming it and what is wrong.
func New(path string, opts Options, ms *metrics.Set, log *slog.Logger) (*Replay, error) {
	if opts.Speed != 0 && (opts.Speed < MinSpeed || opts.Speed > MaxSpeed) {
		return nil, fmt.Errorf("replay: speed %v: want %v to %v, or 0 for flat out", opts.Speed, MinSpeed, MaxSpeed)
	}
	if opts.Name == "" {
		opts.Name = DefaultName
	}
	if opts.HandOffDepth == 0 {
		opts.HandOffDepth = DefaultHandOffDepth
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	f, err := record.Open(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	l := f.Layout
	sigs := Signals(l.Signals)
	s, err := udpstreamer.New(udpstreamer.Config{Name: opts.Name, Address: opts.Address, Port: opts.Port,
		HandOffDepth: opts.HandOffDepth, AllowedClients: opts.AllowedClients, Signals: sigs}, ms, log)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("replay: %s: its signal list cannot be served: %w", path, err)
	}
	return &Replay{opts: opts, file: f, layout: l, s: s, log: log.With("replay", path), sigs: sigs,
		pace: paceColumnsOf(l), done: make(chan struct{})}, nil
}

// Signals returns the datasource signals of a CONFIG's signal list.
func Signals(infos []wire.SignalInfo) []datasource.Signal {
	sigs := make([]datasource.Signal, len(infos))
	for i := range infos {
		in := &infos[i]
		s := datasource.Signal{Name: in.Name, Type: in.Type, NumberOfDimensions: int(in.NumDimensions), Unit: in.Unit,
			RangeMin: in.RangeMin, RangeMax: in.RangeMax, QuantizedType: in.Quant, TimeMode: in.TimeMode, SamplingRate: in.SamplingRate}
		switch in.NumDimensions {
		case 1:
			s.NumberOfElements = int(in.NumCols)
		case 2:
			s.Rows, s.Cols, s.NumberOfElements = int(in.NumRows), int(in.NumCols), in.Elements()
		}
		if in.TimeMode.NeedsTimeSignal() {
			s.TimeSignal = infos[in.TimeSignalIdx].Name
		}
		sigs[i] = s
	}
	return sigs
}

// Streamer returns the Streamer that serves the recording.
func (r *Replay) Streamer() *udpstreamer.Streamer { return r.s }

// Layout returns the recording's layout.
func (r *Replay) Layout() *record.Layout { return r.layout }

// Name returns the datasource name.
func (r *Replay) Name() string { return r.opts.Name }

// Signals returns the recording's signals as the Streamer serves them.
func (r *Replay) Signals() []datasource.Signal { return r.sigs }

// AllocateMemory allocates the Streamer's memory and the reader's batches.
func (r *Replay) AllocateMemory() error {
	if err := r.s.AllocateMemory(); err != nil {
		return err
	}
	r.feed = newFeeder(r.file, r.layout, r.pace, r.s.Signals(), r.opts.Loop)
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
func (r *Replay) Open() error { return r.s.Open() }

// PrepareNextState starts the Streamer, the reader and the pacing thread.
func (r *Replay) PrepareNextState() error {
	if r.feed == nil {
		return fmt.Errorf("datasource %q: %w", r.opts.Name, datasource.ErrNotAllocated)
	}
	if r.thread != nil {
		return fmt.Errorf("datasource %q: %w", r.opts.Name, datasource.ErrStarted)
	}
	if err := r.s.PrepareNextState(); err != nil {
		return err
	}
	r.feed.start()
	th, err := netthread.Start(netthread.Config{Name: r.opts.Name + "-pace", CPUMask: r.opts.CPUMask}, r.play)
	if err != nil {
		r.feed.stop()
		r.s.Close()
		return fmt.Errorf("datasource %q: pacing thread: %w", r.opts.Name, err)
	}
	r.thread = th
	r.log.Info("replaying", "address", r.s.LocalAddr().String(), "rows", r.file.NumRows, "format", r.layout.Format,
		"speed", speedText(r.opts.Speed), "loop", r.opts.Loop)
	return nil
}

// Start is AllocateMemory then PrepareNextState.
func (r *Replay) Start() error {
	if err := r.AllocateMemory(); err != nil {
		return err
	}
	return r.PrepareNextState()
}

func speedText(v float64) string {
	if v == 0 {
		return "flat out"
	}
	return fmt.Sprintf("%gx", v)
}

// Synchronise does nothing: the pacing thread synchronises the Streamer.
func (r *Replay) Synchronise() error { return nil }

// Close stops the pacing thread, the reader and the Streamer, and closes
// the file. Later calls do nothing.
func (r *Replay) Close() error {
	if r.stopped.Swap(true) {
		return nil
	}
	var err error
	if r.thread != nil {
		err = r.thread.Stop()
	}
	if r.feed != nil {
		r.feed.stop()
	}
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
	return Stats{Rows: r.rows.Load(), Lost: r.lost.Load(), Loops: r.loops.Load(), Late: r.late.Load()}
}

// Status is the Replay's snapshot for /status: the Streamer's fields
// (its StatusReport), then the replay's own.
type Status struct {
	Streamer any    `json:"-"`
	File     string `json:"file"`
	Speed    string `json:"speed"`
	Loop     bool   `json:"loop"`
	Stats
}

// MarshalJSON writes one object: the Streamer's fields, then the
// replay's.
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
	if len(a) == 2 { // {}
		return b, nil
	}
	return append(append(a[:len(a)-1], ','), b[1:]...), nil
}

// StatusReport returns Status as an any.
func (r *Replay) StatusReport() any {
	return Status{Streamer: r.s.StatusReport(), File: r.file.Path, Speed: speedText(r.opts.Speed), Loop: r.opts.Loop, Stats: r.Stats()}
}

// Describe returns one line on the datagrams.
func (r *Replay) Describe() string {
	return r.s.Describe() + fmt.Sprintf("; replaying %s (%d rows)", r.file.Path, r.file.NumRows)
}

// Bounds of the pacing.
const (
	maxSleep = 50 * time.Millisecond // a sleep is cut to this, to see a stop
	lateBy   = time.Second           // behind by more, the clock starts again
	flatWait = 50 * time.Microsecond // flat out, the wait for a free slot
	// maxGap bounds the lost updates of one row passed to the Streamer,
	// below the client's implausible counter jump.
	maxGap = wire.MaxCounterJump / 2
)

// play is the pacing thread.
func (r *Replay) play(stop <-chan struct{}) {
	if r.opts.WaitClient && !r.waitClient(stop) {
		return
	}
	depth := r.opts.HandOffDepth
	next := cpu.MonotonicNanos()
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
				next += int64(float64(b.dt[j]) / r.opts.Speed)
				now := cpu.MonotonicNanos()
				if now-next > int64(lateBy) {
					next = now
					r.late.Add(1)
				}
				if !sleepUntil(next, stop) {
					return
				}
			}
			// Never overwrite a cycle the network thread has not taken:
			// a stalled network thread delays the rows, it skips none.
			for r.s.Waiting() >= depth {
				if !sleepFor(flatWait, stop) {
					return
				}
			}
			row := b.mem[j*size : (j+1)*size]
			for i, buf := range r.bufs {
				copy(buf, row[r.feed.offsets[i]:])
			}
			gap := min(b.gap[j], maxGap)
			r.s.SynchroniseAfterGap(gap)
			r.rows.Add(1)
			if gap != 0 {
				r.lost.Add(uint64(gap))
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
	for !r.s.Client().IsValid() {
		if !sleepFor(10*time.Millisecond, stop) {
			return false
		}
	}
	return true
}

// drain waits until the network thread took every cycle published.
func (r *Replay) drain(stop <-chan struct{}) {
	for r.s.Waiting() > 0 {
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
