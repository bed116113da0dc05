// Command udps connects to a UDPStreamer server, prints its CONFIG as a table and streams the decoded updates as a live view, text, CSV, JSON lines or per-second statistics.
//
// Usage:
//
//	udps [-server 127.0.0.1:44500] [-local :0] [-format view|table|csv|json|stats]
//	     [-per-sample] [-n N] [-timeout 2s] [-interval 1s]
//	     [-silence 0] [-reconnect] [-max-columns 16384]
//
// Formats, one record per accepted update unless said otherwise:
//   - view (the default when stdout is a terminal): one screen, redrawn a
//     few times a second: the server, the update rate (or how long the
//     stream has been silent), the running totals, then one line per signal
//     with its unit and latest value, arrays shortened, and the last events.
//   - table (the default otherwise, e.g. into a pipe): the CONFIG table, then
//     "#counter hrt=ns lost=n skipped=n [silence=3.2s]  name=value ..." per
//     update, arrays longer than 8 shortened to their first 4 and last 2
//     elements.
//   - csv: a header "counter,hrt_ns,lost,skipped,silence_s,<signals>" with
//     arrays expanded as name[k] (vectors) or name[r][c] (matrices), then one
//     row per update. A CONFIG that needs more than -max-columns columns is
//     refused with a message: use json or -per-sample for long arrays.
//   - json: {"counter":..,"hrt_ns":..,"lost":..,"skipped":..,"silence_s":..,
//     "signals":{"name":value,...}}, vectors as arrays, matrices as arrays of
//     rows, NaN and infinities as null.
//   - stats: every -interval, "updates/s MB/s lost skipped stale
//     incomplete", the rates and counts of that interval (MB are 10^6 bytes
//     of datagrams, headers included), or "silent 3.2 s" while no update
//     comes.
//
// The CONFIG table (name, type, wire type, dimensions, unit, quantisation
// range, time mode) goes to stdout for table and stats, and to stderr for
// csv and json so that stdout stays machine-readable.
//
// lost counts updates the DATA counter says never arrived; skipped counts
// cycles the server skipped before sending them, which the counter cannot
// show: the client library finds them from the spacing of the updates'
// hrtTimestamps (a gap of whole periods; see docs/udpstreamer.md, "The Go
// client"). silence_s is 0 except on the first update after a silence: the
// seconds since the previous update. So a quiet signal (updates keep
// coming, values unchanged) and a gap in the stream (no updates, then a row
// with silence_s > 0) read differently.
//
// Integers print exactly; raw floats in the shortest form that reads back to
// the same float32 or float64; quantised signals as their dequantised float64.
// Names and units are printed with control characters escaped (\x1b, \n,
// \u202e); JSON keys stay exact for a JSON reader.
//
// -per-sample (csv, json) prints one row per sample index k of the longest
// signal (N elements) instead: the columns above, k, then one time column
// per distinct time base among the N-element signals ("time_s", or
// "time_s:<first signal>" when there are several), in seconds as
// client.Update.Times computes them, then every N-element signal's sample
// k and every scalar's value, repeated. Arrays of other lengths are left out
// (listed on stderr).
//
// When no update comes for -silence (default: 5 of the server's periods and
// at least 1 s), udps reports the silence on stderr (in the view when it
// owns the terminal) and once the updates resume, how long it lasted. The
// server may have stopped, restarted, or given the session to another
// client: with -reconnect, udps sends CONNECT again, at once and then
// backing off from the silence timeout to 30 s, until updates resume. A DATA
// counter that jumps implausibly (a restart without CONFIG, or a stray
// datagram) is reported once and followed.
//
// udps stops after -n updates, or on SIGINT or SIGTERM; either way it sends
// DISCONNECT, prints a summary on stderr and exits 0. A second signal, or a
// stop that takes longer than 2 s (an output nobody reads), exits at once
// with status 130. It exits 1 when the server does not answer within
// -timeout, sends a CONFIG the client refuses (the message says why), or the
// socket fails, and 2 on bad flags. A new CONFIG mid-stream is printed like
// the first (and a new CSV header).
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/cli"
)

func main() {
	cli.Main("udps", cli.Grace, func(ctx context.Context) int { return run(ctx, os.Args[1:], os.Stdout, os.Stderr) })
}

// usage is what -h prints besides the flags.
var usage = cli.Usage{
	Synopsis: []string{"[-server 127.0.0.1:44500] [-local :0] [-format table|csv|json|stats] [-per-sample] [-n N] [-timeout 2s] [-interval 1s]"},
	Summary:  "Connects to a UDPStreamer server, prints its CONFIG as a table and streams the decoded updates. It stops after -n updates or on SIGINT or SIGTERM (exit 0), exits 1 when the server does not answer or the socket fails, 2 on bad flags.",
	Examples: []string{
		"udps -server 127.0.0.1:44500                               # CONFIG table, then the updates",
		"udps -server 127.0.0.1:44500 -format stats                 # updates/s, MB/s, lost, stale per interval",
		"udps -server 127.0.0.1:44500 -format csv -n 1000 > /tmp/capture.csv",
	},
}

type options struct {
	server, local, format      string
	perSample, reconnect       bool
	n                          uint64
	timeout, interval, silence time.Duration
	maxColumns                 int
	refresh                    time.Duration // view redraws
}

// Defaults of the flags that have no client counterpart.
const (
	defaultMaxColumns = 16384 // a spreadsheet's limit
	viewRefresh       = 250 * time.Millisecond
)

func parseFlags(args []string, stderr io.Writer) (options, error) {
	o := options{refresh: viewRefresh}
	fs := cli.NewFlagSet("udps", stderr, usage)
	fs.StringVar(&o.server, "server", "127.0.0.1:"+strconv.Itoa(udpstreamer.DefaultPort), "UDPStreamer server `host:port`")
	fs.StringVar(&o.local, "local", ":0", "local `host:port` to bind (port 0: any free port)")
	fs.StringVar(&o.format, "format", "", "output: view (the default on a terminal), table (the default otherwise), csv, json (one object per line) or stats (once per -interval)")
	fs.BoolVar(&o.perSample, "per-sample", false, "csv/json: one row per sample index, with per-sample times in seconds")
	fs.Uint64Var(&o.n, "n", 0, "stop after `N` updates (0: run until SIGINT or SIGTERM)")
	fs.DurationVar(&o.timeout, "timeout", 2*time.Second, "how long to wait for the CONFIG")
	fs.DurationVar(&o.interval, "interval", time.Second, "statistics period for -format stats")
	fs.DurationVar(&o.silence, "silence", 0, "report a silence after this long without an update (0: 5 server periods, at least 1s; negative: never)")
	fs.BoolVar(&o.reconnect, "reconnect", false, "while silent, send CONNECT again, backing off from the silence timeout to 30s")
	fs.IntVar(&o.maxColumns, "max-columns", defaultMaxColumns, "csv: refuse a CONFIG that needs more columns than this")
	if err := cli.Parse(fs, args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.format != "" && o.format != formatView && o.format != formatTable && o.format != formatCSV && o.format != formatJSON && o.format != formatStats:
		return o, fmt.Errorf("-format %q: want view, table, csv, json or stats", o.format)
	case o.perSample && o.format != formatCSV && o.format != formatJSON:
		return o, errors.New("-per-sample needs -format csv or json")
	case o.timeout <= 0 || o.interval <= 0:
		return o, errors.New("-timeout and -interval must be positive")
	case o.maxColumns < 1:
		return o, errors.New("-max-columns must be positive")
	}
	return o, nil
}

// run is udps's main: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return cli.ParseError("udps", stderr, err)
	}
	if o.format == "" {
		o.format = formatTable
		if isTerminal(stdout) {
			o.format = formatView
		}
	}
	c, err := client.Dial(o.server, client.Options{LocalAddr: o.local, ConnectTimeout: o.timeout, Silence: o.silence, Reconnect: o.reconnect})
	if err != nil {
		fmt.Fprintln(stderr, "udps:", err)
		return cli.ExitError
	}
	// Ending the session: DISCONNECT, then closing the socket unblocks Next.
	var once sync.Once
	shutdown := func() {
		once.Do(func() {
			c.Disconnect()
			c.Close()
		})
	}
	defer shutdown()
	stopWatch := context.AfterFunc(ctx, shutdown)
	defer stopWatch()

	s := &session{o: o, c: c, server: serverName(o.server), ctx: ctx, out: bufio.NewWriterSize(stdout, 64<<10), stdout: stdout, stderr: stderr, cfgOut: stdout}
	if o.format == formatCSV || o.format == formatJSON {
		s.cfgOut = stderr
	}
	cfg, err := c.Connect(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return cli.ExitOK // interrupted while connecting
		}
		fmt.Fprintln(stderr, "udps:", err)
		return cli.ExitError
	}
	code := s.receive(cfg)
	shutdown()
	c.AbandonPartial() // an update whose last fragments never came is incomplete
	s.out.Flush()
	summary(stderr, c.Stats())
	return code
}

// serverName is the address server resolves to, as the client dials it:
// an IPv4 address unmapped.
func serverName(server string) string {
	a, err := net.ResolveUDPAddr("udp", server)
	if err != nil {
		return server
	}
	ap := a.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()).String()
}

// session is one run's output state.
type session struct {
	o              options
	c              *client.Client
	server         string // the server's address, as the client resolved it
	ctx            context.Context
	out            *bufio.Writer
	stdout, stderr io.Writer
	cfgOut         io.Writer // the CONFIG table's destination
	p              *printer  // table, csv, json
	v              *view     // view
	eventsToStderr bool
}

// receive prints the updates of the session that cfg starts until -n, the
// end of ctx, or an error, and returns the exit code.
func (s *session) receive(cfg *client.Config) int {
	var wg sync.WaitGroup
	defer wg.Wait()
	bg, cancel := context.WithCancel(s.ctx)
	defer cancel()
	s.eventsToStderr = true
	switch s.o.format {
	case formatStats:
		wg.Go(func() { printStats(bg, s.c, s.o.interval, s.stdout) })
	case formatView:
		s.v = newView(s.stdout, func() (int, int) { return termSize(s.stdout) }, s.server, s.c, s.o.reconnect)
		s.eventsToStderr = !isTerminal(s.stderr)
		wg.Go(func() { s.v.run(bg, s.o.refresh) })
	}
	if err := s.start(cfg); err != nil {
		return s.fail(err)
	}
	var u client.Update
	for got := uint64(0); s.o.n == 0 || got < s.o.n; {
		err := s.c.Next(&u)
		switch {
		case err == nil:
		case errors.Is(err, client.ErrSilence):
			s.event(strings.TrimPrefix(err.Error(), "udpstreamer/client: "))
			continue
		case errors.Is(err, client.ErrConfigChanged):
			s.event("the server sent a new CONFIG")
			if err := s.start(s.c.Config()); err != nil {
				return s.fail(err)
			}
			continue
		case errors.Is(err, net.ErrClosed) && s.ctx.Err() != nil:
			return cli.ExitOK
		default:
			return s.fail(err)
		}
		got++
		s.note(&u)
		if err := s.write(&u); err != nil {
			if s.ctx.Err() != nil {
				return cli.ExitOK
			}
			return s.fail(err)
		}
	}
	if s.v != nil {
		s.v.want.Store(true) // the last frame shows the last update
		s.v.capture(&u)
	}
	return cli.ExitOK
}

// fail reports err and returns the exit code of a failed run.
func (s *session) fail(err error) int {
	fmt.Fprintln(s.stderr, "udps:", err)
	return cli.ExitError
}

// event reports what happened to the stream: on stderr, and in the view.
func (s *session) event(msg string) {
	if s.v != nil {
		s.v.event(msg)
	}
	if s.eventsToStderr {
		fmt.Fprintln(s.stderr, "udps:", msg)
	}
}

// note reports what an update says about the stream: the end of a
// silence, a resynchronised counter.
func (s *session) note(u *client.Update) {
	if u.Silence > 0 {
		msg := fmt.Sprintf("updates resumed after %.1f s of silence", u.Silence.Seconds())
		if u.SessionStart {
			msg += ", in a new session"
		}
		s.event(msg)
	}
	if u.Resync {
		s.event(fmt.Sprintf("the DATA counter restarted at %d without a CONFIG; following the new sequence", u.Counter))
	}
}

// start prints cfg's table and prepares its output (the CSV header).
func (s *session) start(cfg *client.Config) error {
	switch s.o.format {
	case formatView:
		s.v.configure(s.ctx, cfg)
		return nil
	case formatStats:
		writeConfigTable(s.out, s.server, cfg)
		return s.out.Flush()
	}
	writeConfigTable(s.cfgOut, s.server, cfg)
	p, err := newPrinter(s.ctx, cfg, s.o, s.out)
	if err != nil {
		s.out.Flush()
		return err
	}
	s.p = p
	if len(p.omitted) > 0 {
		fmt.Fprintf(s.stderr, "udps: -per-sample leaves out the arrays not of %d elements: %v\n", p.n, p.omitted)
	}
	if s.o.format == formatCSV {
		return p.writeHeader()
	}
	return s.out.Flush()
}

// write outputs one update in the session's format.
func (s *session) write(u *client.Update) error {
	switch s.o.format {
	case formatView:
		s.v.capture(u)
	case formatStats:
	default:
		return s.p.write(u)
	}
	return nil
}

// printStats prints the rates and counts of every interval until ctx ends,
// or how long the stream has been silent.
func printStats(ctx context.Context, c *client.Client, every time.Duration, w io.Writer) {
	last, since := c.Stats(), time.Now()
	cli.Every(ctx, every, func(dt float64) {
		st := c.Stats()
		if st.Silent {
			if !st.LastUpdate.IsZero() {
				since = st.LastUpdate
			}
			fmt.Fprintf(w, "silent %.1f s\n", time.Since(since).Seconds())
		} else {
			fmt.Fprintf(w, "updates/s=%.1f MB/s=%.3f lost=%d skipped=%d stale=%d incomplete=%d\n",
				float64(st.Updates-last.Updates)/dt, float64(st.Bytes-last.Bytes)/dt/1e6,
				st.Lost-last.Lost, st.Skipped-last.Skipped, st.Stale-last.Stale, st.Incomplete-last.Incomplete)
		}
		last = st
	})
}

func summary(w io.Writer, st client.Stats) {
	bad, dropped := st.BadHeader, st.Dropped
	fmt.Fprintf(w, "udps: %d updates, %d datagrams, %d bytes; lost %d, skipped %d, stale %d, incomplete %d, fragments dropped %d, "+
		"bad datagrams %d, from strangers %d, CONFIGs %d; silences %d, CONNECTs after a silence %d, counter resyncs %d (%d stray updates)\n",
		st.Updates, st.Datagrams, st.Bytes, st.Lost, st.Skipped, st.Stale, st.Incomplete, dropped, bad, st.Foreign, st.Configs,
		st.Silences, st.Reconnects, st.Resyncs, st.Implausible)
}
