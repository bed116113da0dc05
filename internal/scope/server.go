package scope

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/streamerd/streamerd/internal/defaults"
	"github.com/streamerd/streamerd/internal/httpguard"
)

// Options configures a Server. Zero fields take the defaults.
type Options struct {
	// MaxViewers is how many pages are served at once; one more is
	// refused with the reason, shown in its banner.
	MaxViewers int
	// FrameRate is the most frames per second a page gets.
	FrameRate int
	// WriteTimeout drops a page whose connection takes no data this long.
	WriteTimeout time.Duration
	// AckTimeout drops a page that sends no view this long after it was
	// sent the signal list, or acknowledges no frame this long while
	// frames wait for it.
	AckTimeout time.Duration
	// MaxMessage is the largest message a page may send, in bytes.
	MaxMessage int64
	// StatsInterval is how often counters and rates reach the pages.
	StatsInterval time.Duration
	// Limits bound the history.
	Limits Limits
}

// Defaults of Options.
const (
	DefaultMaxViewers    = 32
	DefaultFrameRate     = 30
	DefaultWriteTimeout  = 5 * time.Second
	DefaultAckTimeout    = 30 * time.Second
	DefaultMaxMessage    = 16 << 10 // a view of MaxTraces traces is about 7 KiB
	DefaultStatsInterval = 500 * time.Millisecond
)

func (o Options) withDefaults() Options {
	o.MaxViewers = defaults.Positive(o.MaxViewers, DefaultMaxViewers)
	o.FrameRate = defaults.Positive(o.FrameRate, DefaultFrameRate)
	o.WriteTimeout = defaults.Positive(o.WriteTimeout, DefaultWriteTimeout)
	o.AckTimeout = defaults.Positive(o.AckTimeout, DefaultAckTimeout)
	o.MaxMessage = defaults.Positive(o.MaxMessage, DefaultMaxMessage)
	o.StatsInterval = defaults.Positive(o.StatsInterval, DefaultStatsInterval)
	return o
}

// Server is the scope of one source: it runs the source into its Hub and
// serves the page, its files and the viewers' WebSocket (an http.Handler;
// the page uses relative paths, so it may be mounted under a prefix).
type Server struct {
	hub  *Hub
	src  Source
	opts Options
	log  *slog.Logger
	mux  *http.ServeMux

	ctx    context.Context // ends the viewers at Close
	cancel context.CancelFunc

	viewers                                 atomic.Int32
	framesSent, framesAcked, framesHeld     atomic.Uint64
	frameBytes                              atomic.Uint64
	viewersRefused, viewersDropped, viewerN atomic.Uint64

	statsMu  sync.Mutex
	statsN   uint64
	statsMsg []byte

	dropLogMu   sync.Mutex
	dropLogLast time.Time // the last "viewer dropped" line
	dropLogHeld int       // drops not logged since it
}

// dropLogEvery bounds the "viewer dropped" lines: one a second at most, so
// that a loop of pages dropped at once (a message over the size limit)
// does not flood the log; the drops held back are given with the next.
const dropLogEvery = time.Second

// New returns the scope of src. log receives one line per change of the
// source's status and per viewer dropped.
func New(src Source, opts Options, log *slog.Logger) *Server {
	opts = opts.withDefaults()
	s := &Server{hub: NewHub(opts.Limits, log), src: src, opts: opts, log: log, mux: http.NewServeMux()}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	static, _ := fs.Sub(webFS, "web")
	s.mux.HandleFunc("GET /{$}", s.serveIndex)
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	s.mux.HandleFunc("GET /ws", s.serveWS)
	s.mux.HandleFunc("GET /status.json", s.serveStatus)
	s.makeStats(&statsPrev{})
	return s
}

// Hub returns the server's hub.
func (s *Server) Hub() *Hub { return s.hub }

// ServeHTTP serves the page, its files, /ws and /status.json.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Close ends every viewer's connection.
func (s *Server) Close() { s.cancel() }

// Run runs the source and publishes counters until ctx ends, then closes
// the viewers. A source that fails leaves its error in the page's banner
// and Run waits for ctx all the same, so the page can say why; Run then
// returns that error.
func (s *Server) Run(ctx context.Context) error {
	defer s.Close()
	srcErr := make(chan error, 1)
	go func() { srcErr <- s.src.Run(ctx, s.hub) }()
	t := time.NewTicker(s.opts.StatsInterval)
	defer t.Stop()
	prev := statsPrev{}
	var err error
	for done := false; ; {
		s.hub.tick(time.Now())
		s.makeStats(&prev)
		select {
		case <-ctx.Done():
			if !done {
				err = <-srcErr
			}
			return err
		case err = <-srcErr:
			done = true
			srcErr = nil
		case <-t.C:
		}
	}
}

// statsMsg is the message with the counters, rates and status.
type statsMsg struct {
	Type         string   `json:"type"`
	Status       Status   `json:"status"`
	Counters     Counters `json:"counters"`
	UpdatesPerS  float64  `json:"updatesPerS"`
	MBPerS       float64  `json:"mbPerS"`
	LastUpdateS  float64  `json:"lastUpdateS"` // seconds since the last update; -1 before the first
	Viewers      int      `json:"viewers"`
	HistoryBytes int64    `json:"historyBytes"`
	FramesSent   uint64   `json:"framesSent"`
	// Texts are the latest texts of the char8 signals.
	Texts []SignalText `json:"texts,omitempty"`
}

type statsPrev struct {
	c Counters
	t time.Time
}

// makeStats builds the stats message from the source's counters, with
// rates over the time since the previous call.
func (s *Server) makeStats(prev *statsPrev) {
	now := time.Now()
	c := s.src.Counters()
	m := statsMsg{Type: "stats", Status: s.hub.Status(), Counters: c, LastUpdateS: -1,
		Viewers: int(s.viewers.Load()), HistoryBytes: s.hub.memoryUsed(), FramesSent: s.framesSent.Load(), Texts: s.hub.Texts()}
	if dt := now.Sub(prev.t).Seconds(); !prev.t.IsZero() && dt > 0 {
		m.UpdatesPerS = float64(c.Updates-prev.c.Updates) / dt
		m.MBPerS = float64(c.Bytes-prev.c.Bytes) / dt / 1e6
	}
	if _, at := s.hub.lastUpdate(); !at.IsZero() {
		m.LastUpdateS = now.Sub(at).Seconds()
	}
	prev.c, prev.t = c, now
	b, _ := json.Marshal(m)
	s.statsMu.Lock()
	s.statsN++
	s.statsMsg = b
	s.statsMu.Unlock()
}

// stats returns the latest stats message and its number.
func (s *Server) stats() (uint64, []byte) {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	return s.statsN, s.statsMsg
}

func (s *Server) serveIndex(w http.ResponseWriter, _ *http.Request) {
	b, err := webFS.ReadFile("web/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(b)
}

func (s *Server) serveStatus(w http.ResponseWriter, _ *http.Request) {
	_, b := s.stats()
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// Close codes a page sees.
const (
	closeTooManyViewers = websocket.StatusTryAgainLater
	closeDropped        = websocket.StatusPolicyViolation
)

// serveWS upgrades a page's connection and serves it as a viewer, or
// refuses it with the reason when MaxViewers pages are served.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	// The HTTP server's deadlines cover the request; a viewer has its own.
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept answered the request
	}
	conn.SetReadLimit(s.opts.MaxMessage + 1) // the viewer's reader checks the size itself
	if n := s.viewers.Add(1); int(n) > s.opts.MaxViewers {
		s.viewers.Add(-1)
		s.viewersRefused.Add(1)
		conn.Close(closeTooManyViewers, "too many viewers: this scope serves at most "+strconv.Itoa(s.opts.MaxViewers)+" pages at once")
		return
	}
	defer s.viewers.Add(-1)
	id := s.viewerN.Add(1)
	vw := &viewer{s: s, conn: conn, wake: make(chan struct{}, 1)}
	err = vw.run(s.ctx)
	if errors.Is(err, errWriteTimeout) || errors.Is(err, errAckTimeout) || errors.Is(err, errMessageTooBig) || errors.Is(err, errNoView) {
		s.viewersDropped.Add(1)
		s.logDrop(id, r.RemoteAddr, err)
	}
}

// logDrop logs a viewer dropped, at most one line per dropLogEvery.
func (s *Server) logDrop(id uint64, remote string, err error) {
	s.dropLogMu.Lock()
	now := time.Now()
	if now.Sub(s.dropLogLast) < dropLogEvery {
		s.dropLogHeld++
		s.dropLogMu.Unlock()
		return
	}
	held := s.dropLogHeld
	s.dropLogLast, s.dropLogHeld = now, 0
	s.dropLogMu.Unlock()
	args := []any{"viewer", id, "remote", remote, "reason", err.Error()}
	if held > 0 {
		args = append(args, "dropped_unlogged_before", held)
	}
	s.log.Warn("viewer dropped", args...)
}

// ViewerStats are a server's viewer counts.
type ViewerStats struct {
	Viewers     int    // pages served now
	Refused     uint64 // pages refused for MaxViewers
	Dropped     uint64 // pages dropped for a bound (write or acknowledgement timeout, message size)
	FramesSent  uint64 // frames sent to every page
	FramesAcked uint64 // frames the pages acknowledged: delivered
	FramesHeld  uint64 // frame ticks skipped because the page had not acknowledged
	FrameBytes  uint64
}

// ViewerStats returns the viewer counts.
func (s *Server) ViewerStats() ViewerStats {
	return ViewerStats{Viewers: int(s.viewers.Load()), Refused: s.viewersRefused.Load(), Dropped: s.viewersDropped.Load(),
		FramesSent: s.framesSent.Load(), FramesAcked: s.framesAcked.Load(), FramesHeld: s.framesHeld.Load(), FrameBytes: s.frameBytes.Load()}
}

// HTTP bounds of NewHTTPServer.
const (
	ReadHeaderTimeout = 2 * time.Second
	ReadTimeout       = 10 * time.Second
	WriteTimeout      = 10 * time.Second
	IdleTimeout       = 60 * time.Second
	MaxHeaderBytes    = 16 << 10
)

// httpBounds are the bounds NewHTTPServer applies (tests shorten them).
var httpBounds = struct {
	readHeader, read, write, idle time.Duration
	maxHeader                     int
}{ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout, MaxHeaderBytes}

// NewHTTPServer returns an http.Server for h with the scope's bounds on
// time and header size. WebSocket connections leave its deadlines behind
// and are bounded by Options instead.
func NewHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	b := httpBounds
	return &http.Server{
		Handler: h, ReadHeaderTimeout: b.readHeader, ReadTimeout: b.read,
		WriteTimeout: b.write, IdleTimeout: b.idle, MaxHeaderBytes: b.maxHeader,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
}

// HTTPOptions are what Serve puts around the scope's handler.
type HTTPOptions struct {
	// Listen is the address as given (its host, when a name, is one the
	// server answers to); "" takes the listener's.
	Listen string
	// AllowedHosts are the names answered besides localhost, IP addresses
	// and Listen's host; another name in a request's Host header gets 421
	// (DNS rebinding), which names HostsHint as where to add it.
	AllowedHosts []string
	HostsHint    string
	// Token, when not nil, is asked of every request: a browser gives it
	// once in the page's form and then carries a session cookie; a script
	// sends Authorization: Bearer <token>.
	Token *httpguard.Token
	// Conns bound the connections per client address and in all; its zero
	// fields take httpguard's defaults (64 in all, 16 per client).
	Conns httpguard.ListenerOptions
	// Log receives the server's errors (at debug) and the line about the
	// connection bounds; nil discards them.
	Log *slog.Logger
}

// handler returns h as Serve serves it: the host name checked, then the
// token.
func (o HTTPOptions) handler(ln net.Listener, h http.Handler) http.Handler {
	if o.Token != nil {
		h = newTokenGate(h, o.Token)
	}
	listen := o.Listen
	if listen == "" {
		listen = ln.Addr().String()
	}
	hint := o.HostsHint
	if hint == "" {
		hint = "-allowed-hosts"
	}
	return httpguard.NewHosts(listen, o.AllowedHosts, hint, nil).Check(h)
}

// Serve serves h on ln until ctx ends, then shuts down within a second:
// with the bounds of NewHTTPServer, the connections admitted by an
// httpguard.Listener (o.Conns), and o's host names and token.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, o HTTPOptions) error {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	srv := NewHTTPServer(o.handler(ln, h), o.Log)
	co := o.Conns
	if co.Name == "" {
		co.Name = "scope"
	}
	if co.Log == nil {
		co.Log = o.Log
	}
	lim := httpguard.Listen(ln, co)
	errc := make(chan error, 1)
	go func() { errc <- lim.Serve(srv) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if srv.Shutdown(sctx) != nil {
		srv.Close()
	}
	<-errc
	return nil
}
