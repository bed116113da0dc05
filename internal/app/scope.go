package app

import (
	"context"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"sync"

	"github.com/streamerd/streamerd/internal/config"
	"github.com/streamerd/streamerd/internal/httpguard"
	"github.com/streamerd/streamerd/internal/scope"
)

// appScope is the web scope of the UDPStreamer datasources.
type appScope struct {
	ln     net.Listener
	cancel context.CancelFunc
	wg     sync.WaitGroup
	taps   []scope.Tap
}

// startScope serves the web scope on App.ScopeAddress (nothing when it is
// empty): one page per UDPStreamer or Replay datasource, at / when there is one and
// at /<name>/ when there are several. Each page reads its datasource
// through the datasource's tap, in the process: it is not a network client
// and never takes the session.
func (a *App) startScope() error {
	addr := a.file.App.ScopeAddress
	if addr == "" {
		return nil
	}
	mux := http.NewServeMux()
	var servers []*scope.Server
	var names []string
	var taps []scope.Tap
	closeTaps := func() {
		for _, t := range taps {
			t.Close()
		}
	}
	for _, s := range a.sources {
		us := streamerOf(s.ds)
		if us == nil {
			continue
		}
		tap, err := scope.OpenTap(us)
		if err != nil {
			closeTaps()
			return fmt.Errorf("scope of datasource %q: %w", s.cfg.Name, err)
		}
		taps = append(taps, tap)
		src := &scope.UDPStreamerTap{Name: s.cfg.Name, Tap: tap}
		srv := scope.New(src, scope.Options{}, a.log.With("scope", s.cfg.Name))
		servers = append(servers, srv)
		names = append(names, s.cfg.Name)
	}
	switch len(servers) {
	case 0:
		return nil
	case 1:
		mux.Handle("/", servers[0])
	default:
		for i, srv := range servers {
			p := "/" + url.PathEscape(names[i])
			mux.Handle(p+"/", http.StripPrefix(p, srv))
		}
		mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<!doctype html><title>streamerd scope</title><h1>streamerd scope</h1><ul>")
			for _, n := range names {
				fmt.Fprintf(w, `<li><a href="%s/">%s</a>`, url.PathEscape(n), html.EscapeString(n))
			}
			fmt.Fprint(w, "</ul>")
		})
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		closeTaps()
		return fmt.Errorf("scope listen on %s: %w", addr, err)
	}
	loopback := false
	if ta, ok := ln.Addr().(*net.TCPAddr); ok {
		loopback = ta.IP.IsLoopback()
	}
	if msg := config.ScopeExposure(&a.file.App, loopback); msg != "" {
		a.log.Warn(msg, "address", ln.Addr().String())
	}
	ho := scope.HTTPOptions{
		Listen: addr, AllowedHosts: a.file.App.HTTPAllowedHosts, HostsHint: "App.HTTPAllowedHosts", Token: a.guard.token, Log: a.log,
		Conns: httpguard.ListenerOptions{
			Refused: a.ms.GetOrCreateCounter("streamerd_scope_connections_refused_total"),
			Evicted: a.ms.GetOrCreateCounter("streamerd_scope_connections_evicted_total"),
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	sc := &appScope{ln: ln, cancel: cancel, taps: taps}
	sc.wg.Go(func() { scope.Serve(ctx, ln, mux, ho) })
	for _, srv := range servers {
		sc.wg.Go(func() { srv.Run(ctx) })
	}
	a.scope = sc
	a.log.Info("scope listening", "url", "http://"+ln.Addr().String()+"/", "token", a.guard.token != nil)
	return nil
}

func (a *App) stopScope() {
	if a.scope == nil {
		return
	}
	a.scope.cancel()
	for _, t := range a.scope.taps {
		t.Close() // ends a source waiting in Next
	}
	a.scope.wg.Wait()
	a.scope = nil
}

// ScopeAddr returns the address the scope listens on ("" if off).
func (a *App) ScopeAddr() string {
	if a.scope == nil {
		return ""
	}
	return a.scope.ln.Addr().String()
}
