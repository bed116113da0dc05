package app

import (
	"context"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync"

	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/scope"
)

// appScope is the web scope of the UDPStreamer datasources.
type appScope struct {
	ln     net.Listener
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startScope serves the web scope on App.ScopeAddress (nothing when it is
// empty): one page per UDPStreamer datasource, at / when there is one and
// at /<name>/ when there are several. Each page's scope is a client of its
// datasource over loopback that does not take the session back after a
// silence: another client that connects keeps it.
func (a *App) startScope() error {
	addr := a.file.App.ScopeAddress
	if addr == "" {
		return nil
	}
	mux := http.NewServeMux()
	var servers []*scope.Server
	var names []string
	for _, s := range a.sources {
		us, ok := s.ds.(*udpstreamer.Streamer)
		if !ok {
			continue
		}
		src := &scope.UDPStreamer{Server: loopback(us.LocalAddr()).String()}
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
		return fmt.Errorf("scope listen on %s: %w", addr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sc := &appScope{ln: ln, cancel: cancel}
	sc.wg.Go(func() { scope.Serve(ctx, ln, mux, a.log) })
	for _, srv := range servers {
		sc.wg.Go(func() { srv.Run(ctx) })
	}
	a.scope = sc
	a.log.Info("scope listening", "url", "http://"+ln.Addr().String()+"/")
	return nil
}

// loopback is where a local client reaches a server bound to ap:
// 127.0.0.1 when it is bound to every address (0.0.0.0, or the dual-stack
// "::" that takes IPv4 too).
func loopback(ap netip.AddrPort) netip.AddrPort {
	if ap.Addr().IsUnspecified() {
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), ap.Port())
	}
	return ap
}

func (a *App) stopScope() {
	if a.scope == nil {
		return
	}
	a.scope.cancel()
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
