package scope

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamerd/streamerd/internal/cli"
	"github.com/streamerd/streamerd/internal/defaults"
)

// Signal describes one signal of a source, as the page lists it.
type Signal struct {
	Name     string    `json:"name"`
	Type     string    `json:"type"`            // element type; "float32 as uint16" when quantised on the wire
	Unit     string    `json:"unit"`            // may be empty
	Dims     string    `json:"dims"`            // "scalar", "[1000]", "[3x4]"
	Elements int       `json:"elements"`        // element count
	Range    []float64 `json:"range,omitempty"` // [min, max] of a quantised signal
	Time     string    `json:"time"`            // how its sample times are made
	Clock    int       `json:"clock"`           // signals of one clock share a time base
	// Trace: its samples form one time trace (a scalar, or an array whose
	// elements have their own times). Arrays whose elements share one time
	// are drawn as a waveform or one element over time.
	Trace bool `json:"trace"`
	// WaveX is, for an array, what a waveform's x axis is: "time" (seconds
	// after the first element) or "index".
	WaveX string `json:"waveX,omitempty"`
	// Text: a char8 signal, shown as its latest text (the stats message's
	// texts), never plotted; Trace is false and it has no waveform.
	Text bool `json:"text,omitempty"`
	// CopyOf names the signal this one matched at every one of the first
	// updates (the same value, quantised or converted), which the first
	// view shows instead; Counter marks an integer that rose at every one
	// of them (a counter or a time stamp). Both are set by the Hub.
	CopyOf  string `json:"copyOf,omitempty"`
	Counter bool   `json:"counter,omitempty"`

	// What the source knows of the values, for the first view: float
	// (not integers: a float type, quantised or scaled), size (bytes of an
	// element as produced), step (the wire's quantisation step; 0 when
	// exact) and timeOf (another signal's time signal).
	float  bool
	size   int
	step   float64
	timeOf bool
}

// Info names a source.
type Info struct {
	Kind    string `json:"kind"`    // "UDPStreamer", "FlatUDP" or "RD100S"
	Address string `json:"address"` // the server's, or the local one listened on
}

// Limits bound what a Hub holds. Zero fields take the defaults.
type Limits struct {
	// MaxWindow is the longest window a page may show, and the span of
	// history each signal keeps at the levels that can still grow.
	MaxWindow time.Duration
	// MaxHistoryBytes bounds the memory of every history and waveform.
	MaxHistoryBytes int64
	// MaxSignals is how many signals of a source are kept and listed;
	// the rest are named in a warning.
	MaxSignals int
	// MaxElementTraces is how many "one element over time" traces may be
	// recorded at once (each starts when first asked for).
	MaxElementTraces int
	// MaxTraces is how many traces a page may plot; 0, or more than
	// the package's MaxTraces, means MaxTraces.
	MaxTraces int
}

// Defaults of Limits.
const (
	DefaultMaxWindow        = 60 * time.Second
	DefaultMaxHistoryBytes  = 256 << 20
	DefaultMaxSignals       = 256
	DefaultMaxElementTraces = 16
	// MinWindow is the shortest rolling window.
	MinWindow = 100 * time.Millisecond
)

func (l Limits) withDefaults() Limits {
	l.MaxWindow = defaults.Positive(l.MaxWindow, DefaultMaxWindow)
	l.MaxHistoryBytes = defaults.Positive(l.MaxHistoryBytes, DefaultMaxHistoryBytes)
	l.MaxSignals = defaults.Positive(l.MaxSignals, DefaultMaxSignals)
	l.MaxElementTraces = defaults.Positive(l.MaxElementTraces, DefaultMaxElementTraces)
	if l.MaxTraces <= 0 || l.MaxTraces > MaxTraces {
		l.MaxTraces = MaxTraces
	}
	return l
}

// update is one update as a source hands it to the hub: per signal, the
// values of its elements and their times in seconds of the signal's clock.
type update interface {
	Values(i int) []float64
	Times(i int) []float64
}

// signalState is what the hub keeps of one signal.
type signalState struct {
	trace *series // nil unless Signal.Trace
	wave  *wave   // arrays only
	text  []byte  // Signal.Text only: the latest bytes, one per element
}

// wave is the latest update of an array, x by Signal.WaveX.
type wave struct {
	x, y []float64
	time bool // x is the time after the first element; else the index, set once
	ok   bool
}

// elemTrace records one element of an array over time.
type elemTrace struct {
	sig, elem int
	s         *series
	used      atomic.Int64 // unix nanoseconds a frame last drew it
}

// clockState is the newest time seen on one clock.
type clockState struct {
	newest float64
	ok     bool
}

// Hub is the state one source shares with the page's viewers: the signal
// list, each signal's history and latest waveform, counters and status.
// The source's goroutine writes it under the lock, one update at a time;
// viewers read it under the read lock, one trace at a time, so neither
// waits for the other longer than one trace's drawing.
type Hub struct {
	lim Limits
	log *slog.Logger

	mu      sync.RWMutex
	gen     uint64 // signal list generation: viewers' traces refer to one
	info    Info
	sigs    []Signal
	omitted []string
	state   []signalState
	clocks  []clockState
	elems   []*elemTrace
	mem     budget
	meta    []byte // the meta message of this generation

	marks                 []markRing // per clock
	marked                []bool     // per clock, markPending's scratch
	pendLost, pendSkipped uint32     // counts for the next update's markers
	probe                 probe
	firstView             []FirstTrace // nil until the probe chose

	metaVer atomic.Uint64 // counts meta messages: a viewer sends each new one
	updates atomic.Uint64 // updates pushed since start
	lastAt  atomic.Int64  // unix nanoseconds of the last push

	statusMu sync.Mutex
	status   Status
}

// Status is what the page's banner says about the source.
type Status struct {
	State   string    `json:"state"`   // one of the State constants
	Message string    `json:"message"` // one line for a person; "" when all is well
	Since   time.Time `json:"since"`
}

// States of a source.
const (
	StateStarting  = "starting"
	StateWaiting   = "waiting"   // connecting, or listening before the first datagram
	StateReceiving = "receiving" // updates arrive
	StateSilent    = "silent"    // updates stopped
	StateError     = "error"     // the source cannot run as asked; Message says why
	StateWarning   = "warning"   // receiving, with something the person must know
)

// NewHub returns an empty hub; log receives one line per status change.
func NewHub(lim Limits, log *slog.Logger) *Hub {
	lim = lim.withDefaults()
	h := &Hub{lim: lim, log: log, mem: budget{max: lim.MaxHistoryBytes}}
	h.status = Status{State: StateStarting, Since: time.Now()}
	h.meta, _ = json.Marshal(metaMsg{Type: "meta", Limits: h.pageLimits()})
	h.probe.done = true
	return h
}

// Limits returns the hub's limits with defaults applied.
func (h *Hub) Limits() Limits { return h.lim }

// SetStatus changes the status and logs the change in one line; it
// reports whether it changed.
func (h *Hub) SetStatus(state, message string) bool {
	h.statusMu.Lock()
	if h.status.State == state && h.status.Message == message {
		h.statusMu.Unlock()
		return false
	}
	h.status = Status{State: state, Message: message, Since: time.Now()}
	h.statusMu.Unlock()
	switch {
	case message == "":
	case state == StateError:
		h.log.Error(message)
	case state == StateSilent || state == StateWarning:
		h.log.Warn(message)
	default:
		h.log.Info(message)
	}
	return true
}

// Status returns the current status.
func (h *Hub) Status() Status {
	h.statusMu.Lock()
	defer h.statusMu.Unlock()
	return h.status
}

// metaMsg is the message that tells a page the signal list. It comes
// again, for the same generation, when the first view is chosen.
type metaMsg struct {
	Type    string     `json:"type"`
	Gen     uint64     `json:"gen"`
	Source  Info       `json:"source"`
	Signals []Signal   `json:"signals"`
	Omitted []string   `json:"omitted,omitempty"` // signals beyond MaxSignals
	Limits  pageLimits `json:"limits"`
	// FirstView is what a page plots until its person picks; Choosing is
	// true while the first updates are compared to choose it.
	FirstView []FirstTrace `json:"firstView,omitempty"`
	Choosing  bool         `json:"choosing,omitempty"`
}

type pageLimits struct {
	MinWindow     float64 `json:"minWindow"` // seconds
	MaxWindow     float64 `json:"maxWindow"`
	ElementTraces int     `json:"elementTraces"`
	MaxColumns    int     `json:"maxColumns"`
	MaxTraces     int     `json:"maxTraces"`
}

func (h *Hub) pageLimits() pageLimits {
	return pageLimits{MinWindow: MinWindow.Seconds(), MaxWindow: h.lim.MaxWindow.Seconds(),
		ElementTraces: h.lim.MaxElementTraces, MaxColumns: MaxColumns, MaxTraces: h.lim.MaxTraces}
}

// Configure starts a new signal list: every history is dropped. Signals
// beyond MaxSignals are left out and returned by name; an array whose
// waveform does not fit the memory budget has none.
func (h *Hub) Configure(info Info, sigs []Signal) (omitted []string) {
	if len(sigs) > h.lim.MaxSignals {
		for _, s := range sigs[h.lim.MaxSignals:] {
			omitted = append(omitted, s.Name)
		}
		sigs = sigs[:h.lim.MaxSignals]
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gen++
	h.info = info
	h.sigs = append([]Signal(nil), sigs...)
	h.mem = budget{max: h.lim.MaxHistoryBytes}
	keep := h.lim.MaxWindow.Seconds()
	h.state = make([]signalState, len(sigs))
	nclocks := 0
	for i := range sigs {
		s := &sigs[i]
		nclocks = max(nclocks, s.Clock+1)
		if s.Text {
			h.state[i].text = make([]byte, s.Elements)
			continue
		}
		if s.Trace {
			h.state[i].trace = newSeries(keep, &h.mem)
		}
		if s.Elements > 1 && h.mem.take(int64(s.Elements)*pointBytes) {
			w := &wave{x: make([]float64, s.Elements), y: make([]float64, s.Elements), time: s.WaveX == "time"}
			for k := range w.x {
				w.x[k] = float64(k)
			}
			h.state[i].wave = w
		}
	}
	h.clocks = make([]clockState, nclocks)
	h.marks, h.marked = make([]markRing, nclocks), make([]bool, nclocks)
	h.pendLost, h.pendSkipped = 0, 0
	h.elems = nil
	h.omitted = omitted
	h.probe = newProbe(h.sigs, time.Now())
	h.firstView = nil
	h.makeMeta()
	return omitted
}

// makeMeta makes the meta message of the current state. Caller holds the
// lock.
func (h *Hub) makeMeta() {
	h.meta, _ = json.Marshal(metaMsg{Type: "meta", Gen: h.gen, Source: h.info, Signals: h.sigs, Omitted: h.omitted,
		Limits: h.pageLimits(), FirstView: h.firstView, Choosing: !h.probe.done})
	h.metaVer.Add(1)
}

// tick chooses the first view when the probe has waited long enough;
// the server calls it every StatsInterval.
func (h *Hub) tick(now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.probe.due(now) {
		h.chooseFirstView()
	}
}

// chooseFirstView ends the probe: the signals are annotated, the first
// view chosen and a new meta message made. Caller holds the lock.
func (h *Hub) chooseFirstView() {
	h.probe.done = true
	h.sigs = h.probe.annotate(h.sigs)
	h.firstView = chooseFirstView(h.sigs)
	if h.firstView == nil {
		h.firstView = []FirstTrace{}
	}
	h.probe = probe{done: true} // its memory is no longer needed
	h.makeMeta()
}

// Signals returns the signal list and its generation.
func (h *Hub) Signals() ([]Signal, uint64) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.sigs, h.gen
}

// metaJSON returns the meta message of the current generation.
func (h *Hub) metaJSON() []byte {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.meta
}

// push adds one update. gap marks a break before it in every trace (lost
// updates, or a silence).
func (h *Hub) push(u update, gap bool) {
	now := time.Now()
	h.mu.Lock()
	if h.pendLost|h.pendSkipped != 0 {
		h.markPending(u)
	}
	if !h.probe.done {
		h.probe.observe(u, h.sigs, now)
		if h.probe.due(now) {
			h.chooseFirstView()
		}
	}
	for i := range h.state {
		st := &h.state[i]
		if st.text != nil {
			for k, v := range u.Values(i)[:len(st.text)] {
				st.text[k] = byte(v)
			}
		}
		if st.trace == nil && st.wave == nil {
			h.seeClock(i, u)
			continue
		}
		vs, ts := u.Values(i), u.Times(i)
		if st.trace != nil {
			st.trace.append(ts, vs, gap)
		}
		if w := st.wave; w != nil && len(vs) == len(w.y) {
			copy(w.y, vs)
			if w.time {
				for k, t := range ts[:len(w.x)] {
					w.x[k] = t - ts[0]
				}
			}
			w.ok = true
		}
		h.clockSaw(h.sigs[i].Clock, ts[len(ts)-1])
	}
	for _, e := range h.elems {
		ts, vs := u.Times(e.sig), u.Values(e.sig)
		e.s.append(ts[e.elem:e.elem+1], vs[e.elem:e.elem+1], gap)
	}
	h.mu.Unlock()
	h.updates.Add(1)
	h.lastAt.Store(now.UnixNano())
}

// seeClock advances the clock of signal i from its times alone.
func (h *Hub) seeClock(i int, u update) {
	if ts := u.Times(i); len(ts) > 0 {
		h.clockSaw(h.sigs[i].Clock, ts[len(ts)-1])
	}
}

// clockSaw records time t on clock c: the newest time, except that a small
// step back (a late packet) is ignored and a large one restarts the clock.
func (h *Hub) clockSaw(c int, t float64) {
	if c < 0 || c >= len(h.clocks) || math.IsNaN(t) || math.IsInf(t, 0) {
		return
	}
	cl := &h.clocks[c]
	if !cl.ok || t > cl.newest || cl.newest-t >= resetJump {
		cl.newest, cl.ok = t, true
	}
}

// Errors of element traces.
var (
	errNoSuchElement  = errors.New("no such element")
	errElementsBusy   = errors.New("every element trace is in use")
	elementIdleBefore = 10 * time.Second // an element trace unused this long may be replaced
)

// ensureElement starts recording element elem of array signal sig unless
// it is already recorded, for the signal list of generation gen.
func (h *Hub) ensureElement(gen uint64, sig, elem int) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if gen != h.gen || sig < 0 || sig >= len(h.sigs) || elem < 0 || elem >= h.sigs[sig].Elements || h.sigs[sig].Elements < 2 || h.sigs[sig].Text {
		return errNoSuchElement
	}
	now := time.Now().UnixNano()
	for _, e := range h.elems {
		if e.sig == sig && e.elem == elem {
			e.used.Store(now)
			return nil
		}
	}
	e := &elemTrace{sig: sig, elem: elem, s: newSeries(h.lim.MaxWindow.Seconds(), &h.mem)}
	e.used.Store(now)
	if len(h.elems) < h.lim.MaxElementTraces {
		h.elems = append(h.elems, e)
		return nil
	}
	oldest := 0
	for k, o := range h.elems {
		if o.used.Load() < h.elems[oldest].used.Load() {
			oldest = k
		}
	}
	if time.Duration(now-h.elems[oldest].used.Load()) < elementIdleBefore {
		return fmt.Errorf("%w (%d)", errElementsBusy, h.lim.MaxElementTraces)
	}
	h.elems[oldest].s.reset()
	h.elems[oldest] = e
	return nil
}

// SignalText is the latest text of a char8 signal.
type SignalText struct {
	Name string `json:"name"`
	Text string `json:"text"` // up to the first NUL, escaped (cli.AppendText)
}

// Texts returns the latest text of every text signal, in list order.
func (h *Hub) Texts() []SignalText {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var out []SignalText
	for i := range h.state {
		if t := h.state[i].text; t != nil {
			out = append(out, SignalText{Name: h.sigs[i].Name, Text: string(cli.AppendText(nil, t))})
		}
	}
	return out
}

// lastUpdate returns the updates pushed and the time of the last one.
func (h *Hub) lastUpdate() (uint64, time.Time) {
	n := h.updates.Load()
	if n == 0 {
		return 0, time.Time{}
	}
	return n, time.Unix(0, h.lastAt.Load())
}

// memoryUsed returns the bytes of history held.
func (h *Hub) memoryUsed() int64 {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.mem.used
}
