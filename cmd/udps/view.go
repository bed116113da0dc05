package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/cli"
)

// Terminal control sequences of the view.
const (
	termStart = "\x1b[?25l\x1b[H\x1b[2J" // hide the cursor, clear the screen
	termHome  = "\x1b[H"                 // cursor to the top left
	termEOL   = "\x1b[K"                 // clear the rest of the line
	termEOS   = "\x1b[J"                 // clear the rest of the screen
	termEnd   = "\x1b[?25h\n"            // show the cursor again
)

// Layout limits of the view.
const (
	viewEvents   = 3  // last events shown
	maxNameWidth = 32 // wider names are cut
	maxUnitWidth = 12
)

// view is the refreshing one-screen display of -format view: a status
// line, the counts, one line per signal with its latest value, and the last
// few events, redrawn from the latest update every refresh. The receiving
// goroutine calls configure, capture and event; run draws.
type view struct {
	out    io.Writer
	size   func() (rows, cols int)
	server string
	c      *client.Client
	start  time.Time // the session's start, for a silence before any update
	reconn bool

	want atomic.Bool // the next update's values are wanted for a frame

	mu      sync.Mutex
	p       *printer // formats the values of the current Config
	names   []string // escaped, padded
	units   []string // escaped, padded
	values  [][]byte
	counter uint32
	have    bool // values hold an update
	events  []string

	last   client.Stats
	lastAt time.Time
	frame  []byte
}

func newView(out io.Writer, size func() (int, int), server string, c *client.Client, reconnect bool) *view {
	return &view{out: out, size: size, server: server, c: c, start: time.Now(), reconn: reconnect}
}

// configure starts showing cfg's signals.
func (v *view) configure(ctx context.Context, cfg *client.Config) {
	p, _ := newPrinter(ctx, cfg, options{format: formatTable}, nil)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.p, v.have = p, false
	v.names, v.units = v.names[:0], v.units[:0]
	nw, uw := len("NAME"), len("UNIT")
	for i := range cfg.Signals {
		n, u := cut(cli.Escape(cfg.Signals[i].Name), maxNameWidth), cut(unitOf(&cfg.Signals[i]), maxUnitWidth)
		v.names, v.units = append(v.names, n), append(v.units, u)
		nw, uw = max(nw, utf8.RuneCountInString(n)), max(uw, utf8.RuneCountInString(u))
	}
	for i := range v.names {
		v.names[i], v.units[i] = pad(v.names[i], nw), pad(v.units[i], uw)
	}
	v.names, v.units = append(v.names, pad("NAME", nw)), append(v.units, pad("UNIT", uw)) // the header, last
	v.values = make([][]byte, len(cfg.Signals))
	v.want.Store(true)
}

// capture keeps u's values when a frame wants them.
func (v *view) capture(u *client.Update) {
	if !v.want.Load() {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.p == nil || u.Config() != v.p.cfg {
		return
	}
	for i := range v.values {
		v.values[i] = v.p.appendShort(v.values[i][:0], u, i)
	}
	v.counter, v.have = u.Counter, true
	v.want.Store(false)
}

// event adds a line to the events shown.
func (v *view) event(msg string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.events = append(v.events, time.Now().Format("15:04:05 ")+msg)
	if len(v.events) > viewEvents {
		v.events = v.events[len(v.events)-viewEvents:]
	}
}

// run draws a frame every interval until ctx ends, then a last one.
func (v *view) run(ctx context.Context, every time.Duration) {
	io.WriteString(v.out, termStart)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			v.draw(time.Now())
			io.WriteString(v.out, termEnd)
			return
		case now := <-t.C:
			v.draw(now)
		}
	}
}

// draw writes one frame and asks for the next update's values.
func (v *view) draw(now time.Time) {
	rows, cols := v.size()
	v.mu.Lock()
	b := append(v.frame[:0], termHome...)
	for i, l := range v.lines(now, max(rows, 4)) {
		if i > 0 {
			b = append(b, termEOL+"\n"...)
		}
		b = append(b, cut(l, cols)...)
	}
	b = append(b, termEOL+termEOS...)
	v.frame = b
	v.mu.Unlock()
	v.out.Write(b)
	v.want.Store(true)
}

// lines returns the frame's lines, at most rows of them. v.mu is held.
func (v *view) lines(now time.Time, rows int) []string {
	st := v.c.Stats()
	ls := []string{v.status(now, &st), counts(&st), ""}
	v.last, v.lastAt = st, now
	if v.p != nil {
		room := rows - len(ls) - 1
		if len(v.events) > 0 {
			room -= len(v.events) + 1
		}
		h := len(v.names) - 1
		ls = append(ls, v.names[h]+"  "+v.units[h]+"  VALUE")
		for i := range v.values {
			if i == room-1 && i < len(v.values)-1 {
				ls = append(ls, fmt.Sprintf("... %d more signals (-format table prints them all)", len(v.values)-i))
				break
			}
			ls = append(ls, v.names[i]+"  "+v.units[i]+"  "+string(v.values[i]))
		}
	}
	if len(v.events) > 0 {
		ls = append(append(ls, ""), v.events...)
	}
	return ls[:min(len(ls), rows)]
}

// status is the first line: receiving with the update rate, waiting, or
// silent for how long.
func (v *view) status(now time.Time, st *client.Stats) string {
	s := "udps  " + v.server + "  "
	switch {
	case st.Silent:
		since := st.LastUpdate
		if since.IsZero() {
			since = v.start
		}
		s += fmt.Sprintf("SILENT %.1f s", now.Sub(since).Seconds())
		if v.reconn {
			s += fmt.Sprintf(", %d CONNECTs sent", st.Reconnects)
		}
		return s
	case !v.have:
		return s + "waiting for DATA"
	}
	rate := 0.0
	if dt := now.Sub(v.lastAt).Seconds(); !v.lastAt.IsZero() && dt > 0 {
		rate = float64(st.Updates-v.last.Updates) / dt
	}
	return s + fmt.Sprintf("receiving  %.1f updates/s  counter %d", rate, v.counter)
}

// counts is the second line: the running totals.
func counts(st *client.Stats) string {
	s := fmt.Sprintf("totals: updates %d  lost %d  skipped %d  stale %d  incomplete %d  silences %d  resyncs %d",
		st.Updates, st.Lost, st.Skipped, st.Stale, st.Incomplete, st.Silences, st.Resyncs)
	if st.Period > 0 {
		s += "  period " + st.Period.String()
	}
	return s
}

// cut shortens s to at most n runes.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n, 0)])
}

// pad extends s with spaces to n runes.
func pad(s string, n int) string {
	if k := n - utf8.RuneCountInString(s); k > 0 {
		return s + strings.Repeat(" ", k)
	}
	return s
}
