package app

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/internal/clip"
	"github.com/streamerd/streamerd/internal/httpguard"
)

// Bounds of the HTTP endpoint. Everything a request can make the daemon
// hold (connections, bytes, time, handlers running) is bounded before a
// handler runs, so the garbage the control plane leaves for the collector
// the RT thread shares stays small whatever arrives.
const (
	HTTPReadHeaderTimeout       = 2 * time.Second  // request line and headers
	HTTPReadTimeout             = 5 * time.Second  // the whole request, body included
	HTTPWriteTimeout            = 10 * time.Second // the whole response
	HTTPIdleTimeout             = 5 * time.Second  // a kept-alive connection between requests
	HTTPMaxHeaderBytes          = 8 << 10          // request line and headers (Go adds 4 KiB of slack)
	HTTPMaxBodyBytes            = 8 << 10          // a request body; the control endpoints take a few fields
	HTTPMaxConnections          = 64               // connections served at once; more wait (httpguard.Listener)
	HTTPMaxConnectionsPerClient = 16               // of them from one client address
	HTTPEvictAfter              = 250 * time.Millisecond
	HTTPMaxInFlight             = 4 // requests being handled, per class (control, read); more get 503
	HTTPMaxTokenFileBytes       = httpguard.MaxTokenFileBytes
	HTTPMinTokenBytes           = httpguard.MinTokenBytes
)

// httpLimits are the bounds startHTTP applies.
type httpLimits struct {
	readHeader, read, write, idle time.Duration
	maxHeader, maxBody            int
	maxConns, maxPerClient        int
	evictAfter                    time.Duration
	maxInFlight                   int
}

// httpBounds are the bounds startHTTP applies (tests change them).
var httpBounds = httpLimits{HTTPReadHeaderTimeout, HTTPReadTimeout, HTTPWriteTimeout, HTTPIdleTimeout,
	HTTPMaxHeaderBytes, HTTPMaxBodyBytes, HTTPMaxConnections, HTTPMaxConnectionsPerClient, HTTPEvictAfter, HTTPMaxInFlight}

// Request classes, each with its own in-flight cap, so a flood of control
// requests never starves a Prometheus scrape and the reverse.
const (
	classRead = iota
	classControl
	numClasses
)

// httpGuard admits the requests of the HTTP endpoint: the bearer token
// when there is one; the control endpoints only where they are allowed,
// from the same origin or a client that is not a browser, with their
// parameters once each in the query or a bounded form; a bounded number in
// flight per class.
type httpGuard struct {
	token *httpguard.Token // nil without App.HTTPTokenFile
	// controlOff, when not "", is why the control endpoints are refused.
	controlOff string
	origin     *http.CrossOriginProtection
	inFlight   [numClasses]chan struct{}
	maxBody    int64

	unauthorized, busy, tooLarge, controlRefused, crossOrigin *metrics.Counter
}

func newHTTPGuard(ms *metrics.Set, maxInFlight, maxBody int) *httpGuard {
	g := &httpGuard{maxBody: int64(maxBody), origin: http.NewCrossOriginProtection()}
	for i := range g.inFlight {
		g.inFlight[i] = make(chan struct{}, maxInFlight)
	}
	g.unauthorized, g.busy, g.tooLarge = httpRefused(ms, "unauthorized"), httpRefused(ms, "busy"), httpRefused(ms, "body_too_large")
	g.controlRefused, g.crossOrigin = httpRefused(ms, "control_off"), httpRefused(ms, "cross_origin")
	return g
}

// httpRefused is the counter of the HTTP requests refused for reason.
func httpRefused(ms *metrics.Set, reason string) *metrics.Counter {
	return ms.GetOrCreateCounter(`streamerd_http_requests_refused_total{reason="` + reason + `"}`)
}

// httpHelp is the help of the families of the HTTP endpoint and the scope.
var httpHelp = map[string]string{
	"streamerd_http_requests_refused_total":     "HTTP requests refused before their handler ran, by reason: busy, body_too_large, unauthorized, control_off, cross_origin, host.",
	"streamerd_http_connections_refused_total":  "HTTP connections closed at accept or after waiting for a slot: too many at once.",
	"streamerd_http_connections_evicted_total":  "Idle or half-sent HTTP connections closed to admit a newcomer.",
	"streamerd_scope_connections_refused_total": "Scope connections closed at accept or after waiting for a slot: too many at once.",
	"streamerd_scope_connections_evicted_total": "Idle or half-sent scope connections closed to admit a newcomer.",
}

// handle wraps h, a handler of class, with the checks of g.
func (g *httpGuard) handle(class int, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if g.token != nil && !g.token.Bearer(r) {
			g.unauthorized.Inc()
			w.Header().Set("WWW-Authenticate", `Bearer realm="streamerd"`)
			http.Error(w, "unauthorized: this endpoint needs Authorization: Bearer <token> (App.HTTPTokenFile)", http.StatusUnauthorized)
			return
		}
		if class == classControl {
			if g.controlOff != "" {
				g.controlRefused.Inc()
				http.Error(w, g.controlOff, http.StatusForbidden)
				return
			}
			if err := g.origin.Check(r); err != nil {
				g.crossOrigin.Inc()
				http.Error(w, crossOriginRefusal(r), http.StatusForbidden)
				return
			}
			if msg := formOnly(r); msg != "" {
				http.Error(w, msg, http.StatusUnsupportedMediaType)
				return
			}
		}
		// The body is read before a handler slot is taken, so slow bodies
		// (cut off at HTTPReadTimeout) never hold the slots.
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
		if class == classControl {
			if msg := repeatedParameter(r); msg != "" {
				http.Error(w, msg, http.StatusBadRequest)
				return
			}
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
		h(w, r)
	}
}

// crossOriginRefusal says why a cross-origin request to a control
// endpoint is refused.
func crossOriginRefusal(r *http.Request) string {
	from := "another site (Sec-Fetch-Site: " + clip.Quote(r.Header.Get("Sec-Fetch-Site"), maxQuotedInput) + ")"
	if o := r.Header.Get("Origin"); o != "" {
		from = clip.Quote(o, maxQuotedInput) + " (Origin header)"
	}
	return "forbidden: cross-origin request from " + from + ": the control endpoints change the application, and a page of another site must not make a browser do that; they take requests from this origin or from clients that are not browsers (curl)"
}

// formOnly returns why the body of control request r is refused: a body
// is a URL-encoded form, or absent.
func formOnly(r *http.Request) string {
	if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
		return ""
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err == nil && mt == "application/x-www-form-urlencoded" {
		return ""
	}
	return "unsupported body: the parameters go in the query string, or in a body of Content-Type application/x-www-form-urlencoded, got " +
		clip.Quote(r.Header.Get("Content-Type"), maxQuotedInput)
}

// repeatedParameter returns why r, whose form is parsed, is refused when
// it gives a parameter more than once (in the query, the body, or both):
// which one to use would be a guess.
func repeatedParameter(r *http.Request) string {
	var keys []string
	for k, v := range r.Form {
		if len(v) > 1 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	k := slices.Min(keys)
	return fmt.Sprintf("parameter %s given %d times (query and body together); give each parameter once", clip.Quote(k, maxQuotedInput), len(r.Form[k]))
}
