// Command scope shows one stream live in a browser: a UDPStreamer session, FlatUDP (MARTe2 UDPSender) datagrams or an RD100S-ENC-UDP position stream.
//
// Usage:
//
//	scope -udps 127.0.0.1:44500
//	scope -flat 127.0.0.1:44488 -signals 'Counter:uint32,Sine:float32,Wave:uint16[4]' -rate 1000 [-endian big]
//	      [-group 239.0.0.1 [-iface 127.0.0.1]]
//	scope -rd100s 127.0.0.1:5100
//	scope ... [-listen 0.0.0.0:8090 -token-file /etc/streamerd/token] [-allowed-hosts scope.example.org]
//
// and open the URL it prints (-listen, default 127.0.0.1:8090). Any number
// of browsers (up to -viewers) share the scope's one session: the scope is
// the server's single client and the fan-out to the pages. The page lists
// every signal, opens on distinct ones (copies of one value and counters
// left out), plots the ones picked against the stream's own times, one
// plot per unit, marks lost updates and skipped cycles on the time axis,
// and shows the counters and the stream's status, greyed when it stops;
// see docs/scope.md.
//
// The page answers only to localhost, IP addresses, -listen's host and
// the names of -allowed-hosts (a page of another site whose name resolves
// here gets 421). With -token-file the page asks for the token once and
// the browser keeps a session cookie; without it, a -listen that is not
// loopback is warned about, as anyone who reaches it sees the stream.
//
// A problem with the stream (a server that does not answer, a wrong
// signals string, datagrams of the wrong size, a silence) is printed once
// on stderr and shown in the page's banner; the scope keeps serving the page
// until SIGINT or SIGTERM. It exits 0 then, 1 if the source could not run,
// 2 on bad flags. A second signal, or a stop not done 2 s after the first,
// ends it at once with status 130.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"

	udpsclient "github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/cli"
	"github.com/streamerd/streamerd/internal/httpguard"
	"github.com/streamerd/streamerd/internal/scope"
)

func main() {
	cli.Main("scope", cli.Grace, func(ctx context.Context) int { return run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil) })
}

// usage is what -h prints besides the flags.
var usage = cli.Usage{
	Synopsis: []string{
		"-udps 127.0.0.1:44500 [-listen 127.0.0.1:8090] [-token-file FILE] [-allowed-hosts NAMES]",
		"-flat 127.0.0.1:44488 -signals 'Name:type[count],...' -rate 1000 [-endian big] [-group 239.0.0.1 [-iface 127.0.0.1]]",
		"-rd100s 127.0.0.1:5100",
	},
	Summary: "Shows one stream live in a browser: open the URL it prints. It serves until SIGINT or SIGTERM (exit 0), exits 1 if the source could not run, 2 on bad flags.",
	Examples: []string{
		"scope -udps 127.0.0.1:44500",
		"scope -flat 127.0.0.1:44488 -signals 'Counter:uint32,Time:uint32,Sine:float32,Cosine:float64,Wave:uint16[4]' -rate 1000",
		"scope -rd100s 127.0.0.1:5100",
	},
}

type options struct {
	src                     cli.Source
	listen                  string
	tokenFile, allowedHosts string
	rate                    float64
	reconnect               bool
	viewers, memoryMiB      int
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := cli.NewFlagSet("scope", stderr, usage)
	o.src.Register(fs)
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8090", "`host:port` of the page")
	fs.StringVar(&o.tokenFile, "token-file", "", "`file` holding a token the page asks for (at least 16 printable ASCII characters), as streamerd's HTTPTokenFile")
	fs.StringVar(&o.allowedHosts, "allowed-hosts", "", "comma-separated host `names` the page answers to besides localhost, IP addresses and -listen's host")
	fs.Float64Var(&o.rate, "rate", 0, "-flat: datagrams per second the sender emits (the time base)")
	fs.BoolVar(&o.reconnect, "reconnect", true, "-udps: connect again after a silence (takes the session back if another client took it)")
	fs.IntVar(&o.viewers, "viewers", scope.DefaultMaxViewers, "pages served at once")
	fs.IntVar(&o.memoryMiB, "memory", scope.DefaultMaxHistoryBytes>>20, "MiB of history kept for the signals")
	if err := cli.Parse(fs, args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := o.src.Check(""); err != nil {
		return o, err
	}
	switch {
	case o.src.Flat == "" && o.rate != 0:
		return o, errors.New("-rate goes with -flat")
	case o.viewers < 1 || o.memoryMiB < 1:
		return o, errors.New("-viewers and -memory must be positive")
	}
	for _, h := range o.hosts() {
		if err := httpguard.CheckName(h); err != nil {
			return o, fmt.Errorf("-allowed-hosts: %w", err)
		}
	}
	return o, nil
}

// hosts returns the names of -allowed-hosts.
func (o options) hosts() []string {
	if o.allowedHosts == "" {
		return nil
	}
	return strings.Split(o.allowedHosts, ",")
}

func (o options) source() scope.Source {
	s := o.src
	switch {
	case s.UDPS != "":
		return &scope.UDPStreamer{Server: s.UDPS, Client: udpsclient.Options{ConnectTimeout: s.Timeout}, Reconnect: o.reconnect}
	case s.Flat != "":
		return &scope.FlatUDP{Listen: s.Flat, Group: s.Group, Iface: s.Iface, Signals: s.Signals, Rate: o.rate, Order: s.Endian}
	}
	return &scope.RD100S{Listen: s.RD100S}
}

// run is scope's main; ready, if not nil, gets the page's URL.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(url string)) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return cli.ParseError("scope", stderr, err)
	}
	log := slog.New(&lineHandler{w: stderr})
	var tok *httpguard.Token
	if o.tokenFile != "" {
		if tok, err = httpguard.ReadToken(o.tokenFile); err != nil {
			fmt.Fprintln(stderr, "scope: -token-file:", err)
			return cli.ExitError
		}
		if w := httpguard.TokenFileWarning(o.tokenFile); w != "" {
			fmt.Fprintln(stderr, "scope: warning:", w)
		}
	}
	src := o.source()
	srv := scope.New(src, scope.Options{MaxViewers: o.viewers, Limits: scope.Limits{MaxHistoryBytes: int64(o.memoryMiB) << 20}}, log)
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		fmt.Fprintln(stderr, "scope:", err)
		return cli.ExitError
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); ok && !ta.IP.IsLoopback() && tok == nil {
		fmt.Fprintln(stderr, "scope: warning: -listen is not a loopback address and there is no -token-file: anyone who can reach it sees the stream")
	}
	url := "http://" + ln.Addr().String() + "/"
	info := src.Info()
	fmt.Fprintf(stdout, "scope: %s %s on %s\n", info.Kind, info.Address, url)
	if ready != nil {
		ready(url)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		scope.Serve(ctx, ln, srv, scope.HTTPOptions{Listen: o.listen, AllowedHosts: o.hosts(), HostsHint: "-allowed-hosts", Token: tok, Log: log})
	})
	err = srv.Run(ctx)
	wg.Wait()
	if err != nil {
		return cli.ExitError
	}
	return cli.ExitOK
}

// lineHandler prints each record as one line, "scope: message key=value".
type lineHandler struct {
	mu    sync.Mutex
	w     io.Writer
	attrs []slog.Attr
}

func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString("scope: ")
	b.WriteString(r.Message)
	add := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *lineHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &lineHandler{w: h.w, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}

func (h *lineHandler) WithGroup(string) slog.Handler { return h }
