package scope_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/configs"
	"github.com/streamerd/streamerd/internal/app"
	"github.com/streamerd/streamerd/internal/config"
	"github.com/streamerd/streamerd/internal/scope"
	"github.com/streamerd/streamerd/internal/testenv"
)

// Live sources for the browser test and the benchmark: streamerd itself,
// built from the example configurations with free ports.

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// startApp runs the example configuration name with its HTTP endpoint on a
// free loopback port and the replacements made, until the test ends.
func startApp(tb testing.TB, name string, replace ...string) *app.App {
	tb.Helper()
	data, err := configs.FS.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return startAppText(tb, name, strings.NewReplacer(replace...).Replace(string(data)))
}

// startAppText runs the configuration text (named name in errors) with its
// HTTP endpoint on a free loopback port, until the test ends.
func startAppText(tb testing.TB, name, text string) *app.App {
	tb.Helper()
	text = testenv.FreeHTTP(text)
	f, err := config.Parse(name, []byte(text))
	if err != nil {
		tb.Fatal(err)
	}
	a, err := app.Build(f, metrics.NewSet(), quiet())
	if err != nil {
		tb.Fatal(err)
	}
	if err := a.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { a.Stop() })
	return a
}

// post sends an operator request (/force, /degrade) to a's HTTP endpoint.
func post(tb testing.TB, a *app.App, path string, form url.Values) {
	tb.Helper()
	resp, err := http.PostForm("http://"+a.HTTPAddr()+path, form)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		tb.Fatalf("POST %s %v: %s %s", path, form, resp.Status, b)
	}
}

// startScope serves src's scope on a free loopback port until the test
// ends and returns its URL.
func startScope(tb testing.TB, src scope.Source, opts scope.Options) (*scope.Server, string) {
	tb.Helper()
	return startScopeHTTP(tb, src, opts, scope.HTTPOptions{Log: quiet()})
}

// startScopeHTTP is startScope with ho around the page.
func startScopeHTTP(tb testing.TB, src scope.Source, opts scope.Options, ho scope.HTTPOptions) (*scope.Server, string) {
	tb.Helper()
	s := scope.New(src, opts, quiet())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { scope.Serve(ctx, ln, s, ho) })
	wg.Go(func() { s.Run(ctx) })
	tb.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return s, "http://" + ln.Addr().String() + "/"
}

// lossyProxy relays a UDPStreamer session between a client and a server
// and drops DATA datagrams on request, as a bad network would.
type lossyProxy struct {
	front, back *net.UDPConn
	client      atomic.Pointer[netip.AddrPort]
	drop        atomic.Int64 // DATA datagrams still to drop
	dropped     atomic.Int64
}

func newLossyProxy(tb testing.TB, server string) *lossyProxy {
	tb.Helper()
	front, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		tb.Fatal(err)
	}
	sa, _ := net.ResolveUDPAddr("udp4", server)
	back, err := net.DialUDP("udp4", nil, sa)
	if err != nil {
		tb.Fatal(err)
	}
	front.SetReadBuffer(8 << 20)
	back.SetReadBuffer(8 << 20)
	p := &lossyProxy{front: front, back: back}
	var wg sync.WaitGroup
	wg.Go(p.up)
	wg.Go(p.down)
	tb.Cleanup(func() {
		front.Close()
		back.Close()
		wg.Wait()
	})
	return p
}

func (p *lossyProxy) addr() string { return p.front.LocalAddr().String() }

func (p *lossyProxy) up() {
	buf := make([]byte, 1<<16)
	for {
		n, from, err := p.front.ReadFromUDPAddrPort(buf)
		if err != nil {
			return
		}
		p.client.Store(&from)
		p.back.Write(buf[:n])
	}
}

func (p *lossyProxy) down() {
	buf := make([]byte, 1<<16)
	for {
		n, err := p.back.Read(buf)
		if err != nil {
			return
		}
		if n > 4 && buf[4] == 0 && p.drop.Load() > 0 { // the header's type byte: DATA
			p.drop.Add(-1)
			p.dropped.Add(1)
			continue
		}
		if c := p.client.Load(); c != nil {
			p.front.WriteToUDPAddrPort(buf[:n], *c)
		}
	}
}

// streamerAddr returns the loopback address of a's UDPStreamer "Streamer".
func streamerAddr(a *app.App) string {
	ds := a.DataSource("Streamer").(interface{ LocalAddr() netip.AddrPort })
	return "127.0.0.1:" + strconv.Itoa(int(ds.LocalAddr().Port()))
}

// udpsPort returns the port line of a UDPStreamer configuration.
func udpsPort(port int) string { return "Port = " + strconv.Itoa(port) }
