// Command udps connects to a UDPStreamer server, prints its CONFIG as a table and streams the decoded updates as text, CSV, JSON lines or per-second statistics.
//
// Usage:
//
//	udps [-server 127.0.0.1:44500] [-local :0] [-format table|csv|json|stats]
//	     [-per-sample] [-n N] [-timeout 2s] [-interval 1s]
//
// The CONFIG table (name, type, wire type, dimensions, unit, quantisation
// range, time mode) goes to stdout for -format table and stats, and to stderr
// for csv and json so that stdout stays machine-readable.
//
// Formats, one record per accepted update:
//   - table: "#counter hrt=ns lost=n  name=value ...", arrays longer than 8
//     shortened to their first 4 and last 2 elements.
//   - csv: a header "counter,hrt_ns,lost,<signals>" with arrays expanded as
//     name[k] (vectors) or name[r][c] (matrices), then one row per update.
//   - json: {"counter":..,"hrt_ns":..,"lost":..,"signals":{"name":value,...}},
//     vectors as arrays, matrices as arrays of rows, NaN and infinities as null.
//   - stats: every -interval, "updates/s MB/s lost stale incomplete", the rates
//     and counts of that interval (MB are 10^6 bytes of datagrams, headers included).
//
// Integers print exactly; raw floats in the shortest form that reads back to
// the same float32 or float64; quantised signals as their dequantised float64.
//
// -per-sample (csv, json) prints one row per sample index k of the longest
// signal (N elements) instead: columns counter, hrt_ns, lost, k, then one
// time column per distinct time base among the N-element signals ("time_s", or
// "time_s:<first signal>" when there are several), in seconds as
// client.Update.Times computes them, then every N-element signal's sample
// k and every scalar's value, repeated. Arrays of other lengths are left out
// (listed on stderr).
//
// udps stops after -n updates, or on SIGINT or SIGTERM; either way it sends
// DISCONNECT, prints a summary on stderr and exits 0. It exits 1 when the
// server does not answer within -timeout or the socket fails, 2 on bad flags.
// A new CONFIG mid-stream is printed like the first (and a new CSV header).
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
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
	server, local, format string
	perSample             bool
	n                     uint64
	timeout, interval     time.Duration
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("udps", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cli.SetUsage(fs, usage)
	fs.StringVar(&o.server, "server", "127.0.0.1:44500", "UDPStreamer server `host:port`")
	fs.StringVar(&o.local, "local", client.DefaultLocalAddr, "local `host:port` to bind (port 0: any free port)")
	fs.StringVar(&o.format, "format", formatTable, "output: table, csv, json (one object per line) or stats (once per -interval)")
	fs.BoolVar(&o.perSample, "per-sample", false, "csv/json: one row per sample index, with per-sample times in seconds")
	fs.Uint64Var(&o.n, "n", 0, "stop after `N` updates (0: run until SIGINT or SIGTERM)")
	fs.DurationVar(&o.timeout, "timeout", client.DefaultConnectTimeout, "how long to wait for the CONFIG")
	fs.DurationVar(&o.interval, "interval", time.Second, "statistics period for -format stats")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.format != formatTable && o.format != formatCSV && o.format != formatJSON && o.format != formatStats:
		return o, fmt.Errorf("-format %q: want table, csv, json or stats", o.format)
	case o.perSample && o.format != formatCSV && o.format != formatJSON:
		return o, errors.New("-per-sample needs -format csv or json")
	case o.timeout <= 0 || o.interval <= 0:
		return o, errors.New("-timeout and -interval must be positive")
	}
	return o, nil
}

// run is udps's main: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cli.ExitOK
		}
		fmt.Fprintln(stderr, "udps:", err)
		return cli.ExitUsage
	}
	c, err := client.Dial(o.server, client.Options{LocalAddr: o.local, ConnectTimeout: o.timeout})
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

	out := bufio.NewWriterSize(stdout, 64<<10)
	defer out.Flush()
	var cfgOut io.Writer = out // the CONFIG table stays off a machine-readable stdout
	if o.format == formatCSV || o.format == formatJSON {
		cfgOut = stderr
	}

	cfg, err := c.Connect(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return cli.ExitOK // interrupted while connecting
		}
		fmt.Fprintln(stderr, "udps:", err)
		return cli.ExitError
	}
	server := c.Server().String()
	p := start(o, server, cfg, out, cfgOut, stderr)

	var wg sync.WaitGroup
	defer wg.Wait()
	if o.format == formatStats {
		tctx, cancel := context.WithCancel(ctx)
		defer cancel()
		wg.Go(func() { printStats(tctx, c, o.interval, stdout) })
	}

	code := cli.ExitOK
	var u client.Update
	for got := uint64(0); o.n == 0 || got < o.n; {
		err := c.Next(&u)
		if errors.Is(err, client.ErrConfigChanged) {
			fmt.Fprintln(cfgOut, "udps: the server sent a new CONFIG")
			p = start(o, server, c.Config(), out, cfgOut, stderr)
			continue
		}
		if err != nil {
			if !errors.Is(err, net.ErrClosed) || ctx.Err() == nil {
				fmt.Fprintln(stderr, "udps:", err)
				code = cli.ExitError
			}
			break
		}
		got++
		if p != nil {
			out.Write(p.rows(&u))
			out.Flush() // every update reaches a pipe at once
		}
	}
	shutdown()
	out.Flush()
	summary(stderr, c.Stats())
	return code
}

// start prints cfg's table and, for csv and json, returns a printer (after
// writing the CSV header). It returns nil for stats.
func start(o options, server string, cfg *client.Config, out *bufio.Writer, cfgOut, stderr io.Writer) *printer {
	writeConfigTable(cfgOut, server, cfg)
	if o.format == formatStats {
		out.Flush()
		return nil
	}
	p := newPrinter(cfg, o.format, o.perSample)
	if len(p.omitted) > 0 {
		fmt.Fprintf(stderr, "udps: -per-sample leaves out the arrays not of %d elements: %v\n", p.n, p.omitted)
	}
	if o.format == formatCSV {
		out.Write(p.header())
	}
	out.Flush()
	return p
}

// printStats prints the rates and counts of every interval until ctx ends.
func printStats(ctx context.Context, c *client.Client, every time.Duration, w io.Writer) {
	last := c.Stats()
	cli.Every(ctx, every, func(dt float64) {
		st := c.Stats()
		fmt.Fprintf(w, "updates/s=%.1f MB/s=%.3f lost=%d stale=%d incomplete=%d\n",
			float64(st.Updates-last.Updates)/dt, float64(st.Bytes-last.Bytes)/dt/1e6,
			st.Lost-last.Lost, st.Stale-last.Stale, st.Incomplete-last.Incomplete)
		last = st
	})
}

func summary(w io.Writer, st client.Stats) {
	var bad, dropped uint64
	for _, n := range st.BadHeader {
		bad += n
	}
	for _, n := range st.Dropped {
		dropped += n
	}
	fmt.Fprintf(w, "udps: %d updates, %d datagrams, %d bytes; lost %d, stale %d, incomplete %d, fragments dropped %d, bad datagrams %d, from strangers %d, CONFIGs %d\n",
		st.Updates, st.Datagrams, st.Bytes, st.Lost, st.Stale, st.Incomplete, dropped, bad, st.Foreign, st.Configs)
}
