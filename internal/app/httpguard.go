package app

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/internal/regfile"
)

// Bounds of the HTTP endpoint. Everything a request can make the daemon
// hold (connections, bytes, time, handlers running) is bounded before a
// handler runs, so the garbage the control plane leaves for the collector
// the RT thread shares stays small whatever arrives.
const (
	HTTPReadHeaderTimeout = 5 * time.Second  // request line and headers
	HTTPReadTimeout       = 5 * time.Second  // the whole request, body included
	HTTPWriteTimeout      = 10 * time.Second // the whole response
	HTTPIdleTimeout       = 5 * time.Second  // a kept-alive connection between requests
	HTTPMaxHeaderBytes    = 8 << 10          // request line and headers (Go adds 4 KiB of slack)
	HTTPMaxBodyBytes      = 8 << 10          // a request body; the control endpoints take a few fields
	HTTPMaxConnections    = 64               // open connections; more are closed at accept
	HTTPMaxInFlight       = 4                // requests being handled, per class (control, read); more get 503
	HTTPMaxTokenFileBytes = 4 << 10          // the token file
	HTTPMinTokenBytes     = 16               // the shortest token accepted
)

// httpBounds are the bounds startHTTP applies (tests shorten them).
var httpBounds = struct {
	readHeader, read, write, idle time.Duration
	maxHeader, maxBody            int
	maxConns, maxInFlight         int
}{HTTPReadHeaderTimeout, HTTPReadTimeout, HTTPWriteTimeout, HTTPIdleTimeout,
	HTTPMaxHeaderBytes, HTTPMaxBodyBytes, HTTPMaxConnections, HTTPMaxInFlight}

// Request classes, each with its own in-flight cap, so a flood of control
// requests never starves a Prometheus scrape and the reverse.
const (
	classRead = iota
	classControl
	numClasses
)

// httpGuard admits the requests of the HTTP endpoint: the bearer token
// when there is one, the control endpoints only where they are allowed, a
// bounded number in flight per class, and a bounded body.
type httpGuard struct {
	token    [sha256.Size]byte // SHA-256 of the token, compared in constant time
	hasToken bool
	// controlOff, when not "", is why the control endpoints are refused.
	controlOff string
	inFlight   [numClasses]chan struct{}
	maxBody    int64

	unauthorized, busy, tooLarge, controlRefused *metrics.Counter
}

func newHTTPGuard(ms *metrics.Set, maxInFlight, maxBody int) *httpGuard {
	g := &httpGuard{maxBody: int64(maxBody)}
	for i := range g.inFlight {
		g.inFlight[i] = make(chan struct{}, maxInFlight)
	}
	refused := func(reason string) *metrics.Counter {
		return ms.GetOrCreateCounter(`streamerd_http_refused_total{reason="` + reason + `"}`)
	}
	g.unauthorized, g.busy, g.tooLarge, g.controlRefused = refused("unauthorized"), refused("busy"), refused("body_too_large"), refused("control_off")
	return g
}

// setToken makes every request carry token.
func (g *httpGuard) setToken(token string) {
	g.token, g.hasToken = sha256.Sum256([]byte(token)), true
}

// handle wraps h, a handler of class, with the checks of g.
func (g *httpGuard) handle(class int, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if g.hasToken && !g.authorized(r) {
			g.unauthorized.Inc()
			w.Header().Set("WWW-Authenticate", `Bearer realm="streamerd"`)
			http.Error(w, "unauthorized: this endpoint needs Authorization: Bearer <token> (App.HTTPTokenFile)", http.StatusUnauthorized)
			return
		}
		if class == classControl && g.controlOff != "" {
			g.controlRefused.Inc()
			http.Error(w, g.controlOff, http.StatusForbidden)
			return
		}
		select {
		case g.inFlight[class] <- struct{}{}:
			defer func() { <-g.inFlight[class] }()
		default:
			g.busy.Inc()
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy: too many requests in flight", http.StatusServiceUnavailable)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, g.maxBody)
		if err := r.ParseForm(); err != nil {
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				g.tooLarge.Inc()
				http.Error(w, fmt.Sprintf("request body over %d bytes", g.maxBody), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "malformed form", http.StatusBadRequest)
			return
		}
		h(w, r)
	}
}

// authorized reports whether r carries the token: the scheme is matched
// without regard to case, and the token through fixed-size digests
// compared in constant time, so neither its content nor its length leaks
// through timing.
func (g *httpGuard) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(sum[:], g.token[:]) == 1
}

// readToken reads the bearer token from path: the file's content without
// surrounding white space, at least HTTPMinTokenBytes of printable ASCII
// with no space.
func readToken(path string) (string, error) {
	data, err := regfile.Read(path, HTTPMaxTokenFileBytes)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(data))
	if len(tok) < HTTPMinTokenBytes {
		return "", fmt.Errorf("%s: the token has %d bytes; at least %d (e.g. head -c 32 /dev/urandom | base64)", path, len(tok), HTTPMinTokenBytes)
	}
	for _, c := range tok {
		if c > unicode.MaxASCII || !unicode.IsPrint(c) || c == ' ' {
			return "", fmt.Errorf("%s: the token must be printable ASCII without spaces, as an HTTP header carries it", path)
		}
	}
	return tok, nil
}

// limitListener closes the connections accepted beyond its capacity at
// once, so a flood of idle or slow connections holds a bounded number of
// goroutines and buffers.
type limitListener struct {
	net.Listener
	slots   chan struct{}
	refused *metrics.Counter
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &limitConn{Conn: c, slots: l.slots}, nil
		default:
			l.refused.Inc()
			c.Close()
		}
	}
}

// limitConn gives its slot back when closed.
type limitConn struct {
	net.Conn
	slots chan struct{}
	once  sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { <-c.slots })
	return err
}
