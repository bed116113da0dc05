// Package httpguard bounds what the clients of an HTTP server, web browsers included, can make it do: connections per client address, the host names it answers to, and the bearer token it asks for.
package httpguard

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/VictoriaMetrics/metrics"
)

// ListenerOptions bound the connections of a Listener. Zero fields take
// the defaults.
type ListenerOptions struct {
	// MaxConns is how many connections are served at once.
	MaxConns int
	// MaxPerClient is how many of them one client address holds (an IPv4
	// address, an IPv6 /64).
	MaxPerClient int
	// EvictAfter: a connection that has waited this long for its request
	// (its headers, its body, or the next request on a kept-alive
	// connection) may be closed to serve a newcomer when a bound is
	// reached; one whose request is being handled never is.
	EvictAfter time.Duration
	// MaxQueued is how many accepted connections wait for a slot, and
	// MaxQueuedPerClient how many of them one client address holds; a
	// connection beyond them is closed at once.
	MaxQueued, MaxQueuedPerClient int
	// QueueWait: a connection that waited this long for a slot is closed.
	QueueWait time.Duration
	// LogEvery: at most one log line per LogEvery when the bounds bite.
	LogEvery time.Duration
	// Name is what the log line calls the server ("HTTP", "scope").
	Name string
	// Log receives the line; nil discards it.
	Log *slog.Logger
	// Refused and Evicted, when not nil, count the connections closed at
	// accept (queue full or waited too long) and those closed for a
	// newcomer.
	Refused, Evicted *metrics.Counter
}

// Defaults of ListenerOptions.
const (
	DefaultMaxConns           = 64
	DefaultMaxPerClient       = 16
	DefaultEvictAfter         = 250 * time.Millisecond
	DefaultMaxQueued          = 256
	DefaultMaxQueuedPerClient = 64
	DefaultQueueWait          = 5 * time.Second
	DefaultLogEvery           = 10 * time.Second
)

func positive[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

func (o ListenerOptions) withDefaults() ListenerOptions {
	o.MaxConns = positive(o.MaxConns, DefaultMaxConns)
	o.MaxPerClient = min(positive(o.MaxPerClient, DefaultMaxPerClient), o.MaxConns)
	o.EvictAfter = positive(o.EvictAfter, DefaultEvictAfter)
	o.MaxQueued = positive(o.MaxQueued, DefaultMaxQueued)
	o.MaxQueuedPerClient = min(positive(o.MaxQueuedPerClient, DefaultMaxQueuedPerClient), o.MaxQueued)
	o.QueueWait = positive(o.QueueWait, DefaultQueueWait)
	o.LogEvery = positive(o.LogEvery, DefaultLogEvery)
	if o.Name == "" {
		o.Name = "HTTP"
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// Listener admits the connections of an http.Server within its bounds, so
// that slow or idle connections cannot lock clients out. It takes every
// connection from the kernel at once; a connection that finds its client
// address or the server at its bound waits in a queue, first come first
// served, until a slot frees or a connection that has waited EvictAfter
// for its request is closed to make room (the one that waited longest).
// A client that holds its connections open without sending requests thus
// keeps each for EvictAfter while others wait, and at most MaxPerClient
// of them: the other addresses keep their slots. Serve runs an
// http.Server on it, which tells it which connections are in a request.
//
// Its methods are safe for concurrent use.
type Listener struct {
	ln       net.Listener
	o        ListenerOptions
	incoming chan accepted
	wake     chan struct{} // capacity 1: a connection closed or changed state
	done     chan struct{}
	once     sync.Once

	mu      sync.Mutex
	clients map[netip.Prefix]*client
	open    []*Conn // admitted and not closed
	queue   []*Conn // waiting for a slot, in arrival order
	log     logState
	stats   ListenerStats
}

// ListenerStats are a Listener's counts.
type ListenerStats struct {
	Open, Queued      int    // connections now
	Admitted          uint64 // connections handed to the server
	Evicted           uint64 // closed for a newcomer
	Refused           uint64 // closed at accept: the queue was full
	TimedOut          uint64 // closed after QueueWait in the queue
	MaxOpenPerClient  int    // the most connections one client held at once
	MaxQueueWaitNanos int64  // the longest a connection waited for its slot
}

type accepted struct {
	c   net.Conn
	err error
}

// client is the connections of one client address.
type client struct {
	addr   string // for the log
	open   []*Conn
	queued int
}

// Conn is a connection a Listener admitted.
type Conn struct {
	net.Conn
	l       *Listener
	key     netip.Prefix
	cl      *client
	arrived time.Time // taken from the kernel
	since   time.Time // when it began waiting for its request
	busy    bool      // a request is being handled
	gone    bool      // closed, or handed back for closing
	held    bool      // queued: a bound kept it waiting (logged once)
}

// Listen wraps ln. Close closes ln and every connection still queued.
func Listen(ln net.Listener, o ListenerOptions) *Listener {
	l := &Listener{ln: ln, o: o.withDefaults(), incoming: make(chan accepted), wake: make(chan struct{}, 1),
		done: make(chan struct{}), clients: map[netip.Prefix]*client{}}
	go l.acceptLoop()
	return l
}

// Addr returns the listener's address.
func (l *Listener) Addr() net.Addr { return l.ln.Addr() }

// Close stops accepting and closes the queued connections; the admitted
// ones belong to the server.
func (l *Listener) Close() error {
	err := l.ln.Close()
	l.once.Do(func() { close(l.done) })
	l.mu.Lock()
	q := l.queue
	l.queue = nil
	for _, c := range q {
		c.gone = true
		c.cl.queued--
	}
	l.mu.Unlock()
	for _, c := range q {
		c.Conn.Close()
	}
	return err
}

// Stats returns the counts.
func (l *Listener) Stats() ListenerStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.Open, s.Queued = len(l.open), len(l.queue)
	return s
}

// acceptLoop takes connections from the kernel as they come and hands
// them to Accept, which queues them.
func (l *Listener) acceptLoop() {
	backoff := time.Duration(0)
	for {
		c, err := l.ln.Accept()
		if err != nil && !errors.Is(err, net.ErrClosed) {
			// Out of file descriptors or the like: pass it on (http.Server
			// logs it and calls again) and give the system a moment.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			select {
			case l.incoming <- accepted{err: err}:
			case <-l.done:
				return
			}
			select {
			case <-time.After(backoff):
			case <-l.done:
				return
			}
			continue
		}
		backoff = 0
		select {
		case l.incoming <- accepted{c, err}:
			if err != nil {
				return
			}
		case <-l.done:
			if c != nil {
				c.Close()
			}
			return
		}
	}
}

// Accept returns the next connection to serve, as the bounds admit it.
func (l *Listener) Accept() (net.Conn, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		c, wait := l.admit(time.Now())
		if c != nil {
			return c, nil
		}
		var tick <-chan time.Time
		if wait > 0 {
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			tick = timer.C
		}
		select {
		case a := <-l.incoming:
			if a.err != nil {
				return nil, a.err
			}
			l.enqueue(a.c, time.Now())
		case <-l.wake:
		case <-tick:
		case <-l.done:
			return nil, net.ErrClosed
		}
	}
}

// clientKey is the bound's notion of one client: the IPv4 address, or the
// IPv6 /64 (one host's share of a network).
func clientKey(a net.Addr) netip.Prefix {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.Prefix{}
	}
	ip := ap.Addr().Unmap()
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	p, _ := ip.Prefix(bits)
	return p
}

// enqueue queues nc, or closes it when the queue is full.
func (l *Listener) enqueue(nc net.Conn, now time.Time) {
	key := clientKey(nc.RemoteAddr())
	l.mu.Lock()
	cl := l.clients[key]
	if cl == nil {
		cl = &client{addr: key.Addr().String()}
		l.clients[key] = cl
	}
	full := len(l.queue) >= l.o.MaxQueued || cl.queued >= l.o.MaxQueuedPerClient
	if full {
		l.stats.Refused++
		l.log.bite(cl.addr, "queue", 0, 1, 0)
		l.forget(key, cl)
	} else {
		cl.queued++
		l.queue = append(l.queue, &Conn{Conn: nc, l: l, key: key, cl: cl, arrived: now})
	}
	line := l.log.due(now, l.o.LogEvery)
	l.mu.Unlock()
	if full {
		nc.Close()
		inc(l.o.Refused)
	}
	l.emit(line)
}

// admit hands out the first queued connection the bounds let in, closing
// a connection that waited EvictAfter for its request when that makes
// room; otherwise it returns how long until something may change (0: no
// timer needed).
func (l *Listener) admit(now time.Time) (*Conn, time.Duration) {
	var drop []*Conn
	var victim *Conn
	var got *Conn
	wait := time.Duration(0)
	soon := func(at time.Time) {
		if d := max(at.Sub(now), time.Millisecond); wait == 0 || d < wait {
			wait = d
		}
	}
	l.mu.Lock()
	q := l.queue[:0]
	for _, c := range l.queue {
		if now.Sub(c.arrived) >= l.o.QueueWait {
			c.gone = true
			c.cl.queued--
			l.stats.TimedOut++
			l.log.bite(c.cl.addr, "queue wait", 0, 1, 0)
			l.forget(c.key, c.cl)
			drop = append(drop, c)
			continue
		}
		q = append(q, c)
	}
	clear(l.queue[len(q):])
	l.queue = q
	for i, c := range l.queue {
		overClient := len(c.cl.open) >= l.o.MaxPerClient
		overTotal := len(l.open) >= l.o.MaxConns
		if overClient || overTotal {
			pool, limit := l.open, "total"
			if overClient {
				pool, limit = c.cl.open, "per client"
			}
			v := l.oldestWaiting(pool)
			switch {
			case v == nil:
			case now.Sub(v.since) >= l.o.EvictAfter:
				victim = v
				l.remove(v)
				l.stats.Evicted++
				l.log.bite(v.cl.addr, limit, 1, 0, 0)
			default:
				soon(v.since.Add(l.o.EvictAfter))
			}
			if victim == nil {
				if !c.held {
					c.held = true
					l.log.bite(c.cl.addr, limit, 0, 0, 1)
				}
				soon(c.arrived.Add(l.o.QueueWait))
				if !overClient {
					break // the shared slots go first come, first served
				}
				continue
			}
		}
		got = c
		l.queue = slices.Delete(l.queue, i, i+1)
		c.cl.queued--
		c.since = now
		c.cl.open = append(c.cl.open, c)
		l.open = append(l.open, c)
		l.stats.Admitted++
		l.stats.MaxOpenPerClient = max(l.stats.MaxOpenPerClient, len(c.cl.open))
		l.stats.MaxQueueWaitNanos = max(l.stats.MaxQueueWaitNanos, int64(now.Sub(c.arrived)))
		break
	}
	if got == nil {
		for _, c := range l.queue {
			soon(c.arrived.Add(l.o.QueueWait))
		}
	}
	line := l.log.due(now, l.o.LogEvery)
	l.mu.Unlock()
	for _, c := range drop {
		c.Conn.Close()
		inc(l.o.Refused)
	}
	if victim != nil {
		victim.Conn.Close()
		inc(l.o.Evicted)
	}
	l.emit(line)
	return got, wait
}

// oldestWaiting returns the connection of pool that has waited longest for
// its request, nil if every one is in a request. Caller holds l.mu.
func (l *Listener) oldestWaiting(pool []*Conn) *Conn {
	var v *Conn
	for _, c := range pool {
		if !c.busy && (v == nil || c.since.Before(v.since)) {
			v = c
		}
	}
	return v
}

// remove takes the admitted c out of the counts. Caller holds l.mu.
func (l *Listener) remove(c *Conn) {
	if c.gone {
		return
	}
	c.gone = true
	c.cl.open = slices.DeleteFunc(c.cl.open, func(o *Conn) bool { return o == c })
	l.open = slices.DeleteFunc(l.open, func(o *Conn) bool { return o == c })
	l.forget(c.key, c.cl)
}

// forget drops the record of a client with nothing open or queued.
// Caller holds l.mu.
func (l *Listener) forget(key netip.Prefix, cl *client) {
	if len(cl.open) == 0 && cl.queued == 0 {
		delete(l.clients, key)
	}
}

func (l *Listener) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Close closes the connection and frees its slot.
func (c *Conn) Close() error {
	c.l.mu.Lock()
	c.l.remove(c)
	c.l.mu.Unlock()
	c.l.signal()
	return c.Conn.Close()
}

// setBusy records whether a request is being handled on c; when it ends,
// c starts waiting for the next one.
func (c *Conn) setBusy(busy bool) {
	c.l.mu.Lock()
	c.busy = busy
	c.since = time.Now()
	c.l.mu.Unlock()
	c.l.signal()
}

// connKey is the context key of the *Conn a request came on.
type connKey struct{}

// Serve serves srv on l until l is closed (srv.Shutdown, srv.Close): it
// sets srv.ConnContext and wraps srv.Handler to tell l which connections
// are in a request, from the end of the request's body (or its headers,
// without a body) to the handler's return.
func (l *Listener) Serve(srv *http.Server) error {
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c)
	}
	h := srv.Handler
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Context().Value(connKey{}).(*Conn)
		if c == nil {
			h.ServeHTTP(w, r)
			return
		}
		if r.Body == nil || r.Body == http.NoBody {
			c.setBusy(true)
		} else {
			c.setBusy(false) // its request is not whole until the body is
			r.Body = &bodyWatch{ReadCloser: r.Body, c: c}
		}
		defer c.setBusy(false)
		h.ServeHTTP(w, r)
	})
	return srv.Serve(l)
}

// bodyWatch marks its connection busy when the body has been read.
type bodyWatch struct {
	io.ReadCloser
	c    *Conn
	done bool
}

func (b *bodyWatch) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !b.done {
		b.done = true
		b.c.setBusy(true)
	}
	return n, err
}

func inc(c *metrics.Counter) {
	if c != nil {
		c.Inc()
	}
}

// logState gathers what the bounds did between two log lines.
type logState struct {
	last                     time.Time
	addr, limit              string
	evicted, refused, queued int
	pending                  bool
}

// bite records a bound reached by addr.
func (s *logState) bite(addr, limit string, evicted, refused, queued int) {
	s.addr, s.limit = addr, limit
	s.evicted += evicted
	s.refused += refused
	s.queued += queued
	s.pending = true
}

// logLine is one line to log, or the zero value for none.
type logLine struct {
	addr, limit              string
	evicted, refused, queued int
}

// due returns the line to log now, if one is pending and the last was at
// least every ago, and starts counting afresh.
func (s *logState) due(now time.Time, every time.Duration) logLine {
	if !s.pending || (!s.last.IsZero() && now.Sub(s.last) < every) {
		return logLine{}
	}
	line := logLine{s.addr, s.limit, s.evicted, s.refused, s.queued}
	*s = logState{last: now}
	return line
}

func (l *Listener) emit(line logLine) {
	if line.addr == "" && line.limit == "" {
		return
	}
	l.o.Log.Warn(l.o.Name+" connection bounds reached: new connections wait, those waiting longest for their request are closed, and beyond the queue they are refused",
		"client", line.addr, "bound", line.limit, "queued", line.queued, "evicted", line.evicted, "refused", line.refused,
		"max_connections", l.o.MaxConns, "max_per_client", l.o.MaxPerClient, "next_line_after", l.o.LogEvery.String())
}
