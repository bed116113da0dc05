// Command streamerd runs a streamerd application described by a TOML file: RT threads, GAMs and UDP producer datasources, with Prometheus metrics and operator control over HTTP.
//
// Usage:
//
//	streamerd [-config app.toml] [-http host:port] [-check | -describe] [-log-level info] [-log-format text]
//	streamerd -import-marte2 app.cfg [-import-marte2-partial] [-http host:port] [-check | -describe] > app.toml
//	streamerd -replay run.parquet [-replay-addr 127.0.0.1:44500] [-speed 0.5 | -speed max] [-loop] [-replay-wait=false]
//	streamerd -version
//
// Without -config it runs the embedded default (configs/app.toml).
// -http overrides App.HTTPAddress (-http "" turns HTTP off), so two
// configurations with the same address can run side by side.
// -check validates the file and exits 0 or 1; -describe prints the resolved
// signal layout. Every listener and socket opens before any producer
// sends: a start that fails sends nothing. SIGINT, SIGTERM or SIGHUP stops
// the threads in order and exits 0 (SIGHUP does not reload the
// configuration). -version prints the module version and the VCS revision
// the binary was built from; -h lists every flag. Log lines go to stderr
// through a bounded buffer: when stderr is slow, full or closed they are
// dropped and counted (streamerd_log_lines_dropped_total), never waited
// for, and a closed pipe never stops the daemon.
// -import-marte2 converts a MARTe2 application (.cfg) into streamerd TOML
// (docs/marte2.md); with -check it reports what maps, what is approximated
// and what is skipped instead. The TOML's App.HTTPAddress is a free
// loopback port picked when streamerd starts, or -http's.
// -replay serves a recording made by the record command as a live
// UDPStreamer stream on -replay-addr, at the recorded pace (-speed 0.1 to
// 10 times it, or max for flat out), from its first row once a client
// connects (-replay-wait=false: at once), again and again with -loop; it
// exits 0 at the end of the recording (docs/recording.md).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/configs"
	"github.com/streamerd/streamerd/internal/app"
	"github.com/streamerd/streamerd/internal/cli"
	"github.com/streamerd/streamerd/internal/clip"
	"github.com/streamerd/streamerd/internal/config"
	"github.com/streamerd/streamerd/internal/logsink"
)

func main() {
	// A write to a closed stdout or stderr pipe fails with EPIPE instead
	// of killing the process.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, nil))
}

// Bounds of the log output.
const (
	logBuffer   = 256 << 10 // bytes of log lines waiting for stderr
	maxLogLine  = 8 << 10   // a longer line is cut
	maxLogValue = 1 << 10   // a longer string attribute is cut (the line stays well-formed)
	logFlush    = time.Second
)

// usage is what -h prints besides the flags.
var usage = cli.Usage{
	Synopsis: []string{
		"[-config app.toml] [-http host:port] [-check | -describe] [-log-level info] [-log-format text]",
		"-import-marte2 app.cfg [-import-marte2-partial] [-http host:port] [-check | -describe] > app.toml",
		"-replay run.parquet [-replay-addr 127.0.0.1:44500] [-speed 0.5 | -speed max] [-loop] [-replay-wait=false]",
		"-version",
	},
	Summary: "Runs the streamerd application a TOML file describes (without -config, the embedded configs/app.toml): RT threads, GAMs and UDP producers, with metrics, status and operator control over HTTP. SIGINT, SIGTERM or SIGHUP stops it and it exits 0; it exits 1 when the configuration is invalid or a socket cannot be opened, 2 on bad flags.",
	Examples: []string{
		"streamerd -config configs/rd100s.toml -http 127.0.0.1:9200   # another HTTP port than the file's",
		"streamerd -check -config app.toml                           # exit 0 when valid, else the errors with file:line:col",
		"streamerd -describe -config configs/flatudp.toml            # signal offsets, wire sizes, datagrams",
		"streamerd -import-marte2 app.cfg > app.toml                 # convert a MARTe2 application",
		"streamerd -replay run.parquet -replay-addr 127.0.0.1:44500 -loop   # a recording served as a live stream",
	},
}

// options are the command-line flags.
type options struct {
	path, level, format, importCfg string
	http                           string
	httpSet                        bool // -http was given, possibly ""
	check, describe, partial       bool
	version                        bool
	replay                         replayOptions
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := cli.NewFlagSet("streamerd", stderr, usage)
	fs.StringVar(&o.path, "config", "", "application configuration (`file`, TOML); empty runs the embedded configs/app.toml")
	fs.StringVar(&o.http, "http", "", "HTTP `host:port` for metrics, status and control, overriding App.HTTPAddress; \"\" turns HTTP off")
	fs.BoolVar(&o.check, "check", false, "validate the configuration and exit 0 (valid) or 1")
	fs.BoolVar(&o.describe, "describe", false, "print the resolved signal layout and exit")
	fs.StringVar(&o.level, "log-level", "", "debug, info, warn or error (overrides App.LogLevel)")
	fs.StringVar(&o.format, "log-format", "", "text or json (overrides App.LogFormat)")
	fs.StringVar(&o.importCfg, "import-marte2", "", "MARTe2 application (`app.cfg`) to convert: prints the streamerd TOML, or with -check what maps and what is skipped")
	fs.BoolVar(&o.partial, "import-marte2-partial", false, "with -import-marte2: keep signals fed by what is not imported (they stay zero) instead of failing")
	fs.BoolVar(&o.version, "version", false, "print the version and VCS revision, and exit")
	o.replay.flags(fs)
	if err := cli.Parse(fs, args); err != nil {
		return o, err
	}
	if err := o.replay.check(fs, o.path != "" || o.importCfg != "" || o.check || o.describe); err != nil {
		return o, err
	}
	fs.Visit(func(f *flag.Flag) { o.httpSet = o.httpSet || f.Name == "http" })
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.importCfg != "" && o.path != "":
		return o, errors.New("-import-marte2 and -config exclude each other")
	case o.httpSet && o.http != "":
		if _, _, err := net.SplitHostPort(o.http); err != nil {
			return o, fmt.Errorf("-http %q: want host:port such as 127.0.0.1:9100, or \"\" to turn HTTP off", o.http)
		}
	}
	return o, nil
}

// run is main with its environment passed in; stop, when not nil, replaces
// the process signals (tests close it to stop the daemon).
func run(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return cli.ParseError("streamerd", stderr, err)
	}
	if o.version {
		fmt.Fprintln(stdout, cli.Version("streamerd"))
		return cli.ExitOK
	}
	if o.importCfg != "" {
		return importMARTe2(o.importCfg, o, stdout, stderr)
	}
	if o.replay.file != "" {
		return runReplay(o, stdout, stderr, stop)
	}

	// Signals are taken from here on, before the configuration is read: a
	// signal during the start-up stops the daemon as it stops a running
	// one (exit 0), where the runtime's default had killed it.
	var logp atomic.Pointer[slog.Logger] // the log, once there is one
	if stop == nil && !o.check && !o.describe {
		var release func()
		stop, release = stopOnSignal(func() *slog.Logger {
			if l := logp.Load(); l != nil {
				return l
			}
			return slog.New(slog.NewTextHandler(stderr, nil))
		})
		defer release()
	}

	var overrides []config.Override
	if o.httpSet {
		// The flag's value meets the key's rules and warnings.
		overrides = append(overrides, config.Override{Path: "App.HTTPAddress", Value: o.http, Flag: "-http"})
	}
	var f *config.File
	if o.path == "" {
		data, _ := configs.FS.ReadFile("app.toml") // embedded: it always reads
		f, err = config.Parse("configs/app.toml (embedded)", data, overrides...)
	} else {
		f, err = config.Load(o.path, overrides...)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	for _, w := range f.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	if o.level != "" {
		f.App.LogLevel = o.level
	}
	if o.format != "" {
		f.App.LogFormat = o.format
	}
	sink := logsink.New(stderr, logsink.Options{Buffer: logBuffer, MaxLine: maxLogLine})
	defer sink.Close(logFlush)
	log, err := newLogger(sink, f.App.LogLevel, f.App.LogFormat)
	if err != nil {
		fmt.Fprintln(stderr, "streamerd:", err)
		return 2
	}
	logp.Store(log)

	// # HELP and # TYPE lines in /metrics, for Prometheus and its tools.
	metrics.ExposeMetadata(true)
	ms := metrics.NewSet()
	ms.RegisterMetricsWriter(func(w io.Writer) { writeLogMetrics(w, sink.Stats()) })
	a, err := app.Build(f, ms, log)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if o.check {
		fmt.Fprintf(stdout, "%s: valid\n", f.Path)
		return 0
	}
	if o.describe {
		a.Describe(stdout)
		return 0
	}

	select {
	case <-stop:
		log.Info("streamerd stopped before it started")
		return 0
	default:
	}
	if err := a.Start(); err != nil {
		fmt.Fprintln(stderr, "streamerd: start:", err)
		return 1
	}
	log.Info("streamerd running", "config", f.Path, "http", a.HTTPAddr())
	<-stop
	if err := a.Stop(); err != nil {
		log.Error("stop", "error", err)
		return 1
	}
	log.Info("streamerd stopped")
	return 0
}

// stopOnSignal returns a channel closed at the first SIGINT, SIGTERM or
// SIGHUP, which it records in the log that log returns then; release stops
// taking the signals. After the first, the signals are the system's again:
// a second one ends a stop that hangs at once.
func stopOnSignal(log func() *slog.Logger) (stop <-chan struct{}, release func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	ch := make(chan struct{})
	go func() {
		if s, ok := <-sig; ok {
			signal.Stop(sig)
			log().Info("stopping", "signal", s.String(), "again", "ends the process at once")
			close(ch)
		}
	}()
	return ch, func() {
		signal.Stop(sig)
		close(sig)
	}
}

func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: l, ReplaceAttr: clipAttr}
	switch format {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("log format %q: want text or json", format)
}

// clipAttr cuts a string or error attribute longer than maxLogValue, so
// that no input quoted in a log line can make it unbounded.
func clipAttr(_ []string, a slog.Attr) slog.Attr {
	var s string
	switch a.Value.Kind() {
	case slog.KindString:
		s = a.Value.String()
	case slog.KindAny:
		err, ok := a.Value.Any().(error)
		if !ok {
			return a
		}
		s = err.Error()
	default:
		return a
	}
	if len(s) > maxLogValue {
		a.Value = slog.StringValue(clip.Prefix(s, maxLogValue) + "…(" + strconv.Itoa(len(s)) + " bytes)")
	}
	return a
}

// writeLogMetrics writes the log sink's counts as Prometheus counters,
// each with its help.
func writeLogMetrics(w io.Writer, st logsink.Stats) {
	for _, c := range [...]struct {
		name, help string
		n          uint64
	}{
		{"streamerd_log_lines_dropped_total", "Log lines dropped because stderr was slow, full or blocked.", st.Dropped},
		{"streamerd_log_write_errors_total", "Writes to stderr that failed (a closed pipe...); their log lines are lost.", st.Failed},
		{"streamerd_log_lines_truncated_total", "Log lines cut at their maximum length.", st.Truncated},
	} {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", c.name, c.help, c.name, c.name, c.n)
	}
}
