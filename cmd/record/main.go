// Command record keeps a stream as Parquet: a UDPStreamer session, an RD100S-ENC-UDP position stream or FlatUDP (MARTe2 UDPSender) datagrams, one row per update.
//
// Usage:
//
//	record -udps 127.0.0.1:44500 -o run.parquet [-duration 10m] [-rotate-size 1GiB] [-rotate-every 1h] [-codes]
//	record -rd100s 127.0.0.1:5100 -o run.parquet
//	record -flat 127.0.0.1:44488 -signals 'Counter:uint32,Sine:float32,Wave:uint16[4]' [-endian big] -o run.parquet
//	record -repair run.parquet
//
// It records until SIGINT or SIGTERM (or -duration), then writes the
// footer and exits 0. Row groups are written every -row-group-size bytes
// or -row-group-interval, whichever comes first: a recorder killed with
// SIGKILL (or a machine that stops) loses at most the rows of its last
// row group, and -repair rebuilds the footer of the file it was writing
// from the index beside it (run.parquet.idx). A UDPStreamer that sends a
// new CONFIG continues the recording in a new file. docs/recording.md
// describes the files.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	udpsclient "github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/cli"
	"github.com/streamerd/streamerd/internal/cputime"
	"github.com/streamerd/streamerd/internal/record"
)

// grace is how long record may take to write its footer after SIGINT or
// SIGTERM before a second signal, or the end of grace, exits at once.
const grace = 30 * time.Second

func main() {
	cli.Main("record", grace, func(ctx context.Context) int { return run(ctx, os.Args[1:], os.Stdout, os.Stderr) })
}

var usage = cli.Usage{
	Synopsis: []string{
		"-udps 127.0.0.1:44500 -o run.parquet [-duration 10m] [-rotate-size 1GiB] [-rotate-every 1h] [-codes]",
		"-rd100s 127.0.0.1:5100 -o run.parquet",
		"-flat 127.0.0.1:44488 -signals 'Name:type[count],...' [-endian big] [-group 239.0.0.1 [-iface 127.0.0.1]] -o run.parquet",
		"-repair run.parquet",
	},
	Summary: "Records one stream to Parquet, one row per update, until SIGINT, SIGTERM or -duration; then writes the footer and exits 0. It exits 1 when the stream or the file fails (what was written stays readable, or repairable with -repair), 2 on bad flags. -repair rebuilds the footer of a file whose recorder was killed, keeping its complete row groups.",
	Examples: []string{
		"record -udps 127.0.0.1:44500 -o shot.parquet -duration 30s",
		"record -udps 127.0.0.1:44500 -o run.parquet -rotate-every 1h   # run-0001.parquet, run-0002.parquet …",
		"record -rd100s 127.0.0.1:5100 -o encoder.parquet",
		"record -flat 127.0.0.1:44488 -signals 'Counter:uint32,Time:uint32,Sine:float32,Cosine:float64,Wave:uint16[4]' -o flat.parquet",
		"record -repair run.parquet                                    # after a kill: keep the complete row groups",
	},
}

type options struct {
	src                             cli.Source
	out, repair                     string
	compression, rotateSize, rgSize string
	duration, rotateEvery, rgEvery  time.Duration
	status                          time.Duration
	codes                           bool
}

func parseFlags(args []string, stderr io.Writer) (options, record.Options, error) {
	var o options
	fs := cli.NewFlagSet("record", stderr, usage)
	o.src.Register(fs)
	fs.StringVar(&o.out, "o", "", "Parquet `file` to write (must not exist); with rotation the files are numbered: run-0001.parquet …")
	fs.StringVar(&o.repair, "repair", "", "rebuild the footer of a `file` whose recorder was killed, from its .idx, and exit")
	fs.DurationVar(&o.duration, "duration", 0, "stop after this long (0: at SIGINT or SIGTERM)")
	fs.StringVar(&o.rotateSize, "rotate-size", "", "start a new file when this one reaches this `size` (bytes, or with KB, MB, GB, KiB, MiB, GiB)")
	fs.DurationVar(&o.rotateEvery, "rotate-every", 0, "start a new file when this one is this old (0: never)")
	fs.StringVar(&o.rgSize, "row-group-size", "8MiB", "write a row group when its values reach this `size`")
	fs.DurationVar(&o.rgEvery, "row-group-interval", record.DefaultRowGroupInterval, "write a row group when its first row is this old: at most what a kill loses")
	fs.StringVar(&o.compression, "compression", record.DefaultCompression, "page compression: snappy, zstd or none")
	fs.BoolVar(&o.codes, "codes", false, "-udps: also record each quantised signal's wire codes (columns Name:code)")
	fs.DurationVar(&o.status, "status", 10*time.Second, "print rows, bytes and losses on stderr this often (0: only at the end)")
	if err := cli.Parse(fs, args); err != nil {
		return o, record.Options{}, err
	}
	switch {
	case fs.NArg() > 0:
		return o, record.Options{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.repair != "":
		if o.src.Given() > 0 || o.out != "" {
			return o, record.Options{}, errors.New("-repair goes alone")
		}
		return o, record.Options{}, nil
	}
	if err := o.src.Check("-repair FILE"); err != nil {
		return o, record.Options{}, err
	}
	switch {
	case o.out == "":
		return o, record.Options{}, errors.New("give the file to write: -o run.parquet")
	case o.codes && o.src.UDPS == "":
		return o, record.Options{}, errors.New("-codes goes with -udps")
	case o.duration < 0 || o.status < 0:
		return o, record.Options{}, errors.New("-duration and -status must not be negative")
	}
	ro := record.Options{Path: o.out, RowGroupInterval: o.rgEvery, RotateEvery: o.rotateEvery, Compression: o.compression}
	var err error
	if ro.RotateSize, err = parseSize("-rotate-size", o.rotateSize); err != nil {
		return o, ro, err
	}
	if ro.RowGroupBytes, err = parseSize("-row-group-size", o.rgSize); err != nil {
		return o, ro, err
	}
	return o, ro, nil
}

// parseSize parses a byte count with an optional unit; "" is 0.
func parseSize(flagName, s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	units := []struct {
		suffix string
		mul    int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mul, num := int64(1), strings.TrimSpace(s)
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			mul, num = u.mul, strings.TrimSpace(strings.TrimSuffix(num, u.suffix))
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || v*float64(mul) > 1<<62 {
		return 0, fmt.Errorf("%s %q: want a size such as 512MiB, 1GB or 1048576", flagName, s)
	}
	return int64(v * float64(mul)), nil
}

func (o options) source() record.Source {
	s := o.src
	switch {
	case s.UDPS != "":
		return &record.UDPStreamerSource{Server: s.UDPS, Codes: o.codes,
			Client: udpsclient.Options{ConnectTimeout: s.Timeout, Reconnect: true}}
	case s.Flat != "":
		return &record.FlatUDPSource{Listen: s.Flat, Group: s.Group, Iface: s.Iface, Signals: s.Signals, Order: s.Endian}
	}
	return &record.RD100SSource{Listen: s.RD100S}
}

// run is record's main.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, ro, err := parseFlags(args, stderr)
	if err != nil {
		return cli.ParseError("record", stderr, err)
	}
	if o.repair != "" {
		return repair(o.repair, stdout, stderr)
	}
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	src := o.source()
	sess := record.NewSession(ro, log)
	fmt.Fprintf(stdout, "record: %s to %s\n", src.Info(), o.out)
	var wg sync.WaitGroup
	statusCtx, stopStatus := context.WithCancel(ctx)
	if o.status > 0 {
		wg.Go(func() {
			cli.Every(statusCtx, o.status, func(float64) { fmt.Fprintln(stderr, "record:", summary(sess, "writing")) })
		})
	}
	err = sess.Run(ctx, src)
	stopStatus()
	wg.Wait()
	fmt.Fprintln(stdout, "record:", summary(sess, "wrote"))
	if err != nil {
		fmt.Fprintln(stderr, "record:", err)
		return cli.ExitError
	}
	return cli.ExitOK
}

// summary is one line of counts, the file named after verb ("writing"
// while it records, "wrote" at the end).
func summary(s *record.Session, verb string) string {
	st := s.Stats()
	path := ""
	if r := s.Recorder(); r != nil {
		path = r.Path()
	}
	line := fmt.Sprintf("%d rows (%d lost, %d skipped, %d stale, %d incomplete) in %d file(s), %.1f MB, %d row groups",
		st.Rows, st.Lost, st.Skipped, st.Stale, st.Incomplete, st.Files, float64(st.Bytes)/1e6, st.RowGroups)
	if path != "" { // none before the first update
		line += fmt.Sprintf("; %s %s", verb, path)
	}
	if c := cputime.Process(); c > 0 && st.Rows > 0 {
		line += fmt.Sprintf("; CPU %.2f s, %.1f ms per 1000 rows", c.Seconds(), c.Seconds()*1e6/float64(st.Rows))
	}
	return line
}

// repair runs record -repair.
func repair(path string, stdout, stderr io.Writer) int {
	rep, err := record.Repair(path)
	if errors.Is(err, record.ErrComplete) {
		fmt.Fprintf(stdout, "record: %s is complete: nothing to repair\n", path)
		return cli.ExitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return cli.ExitError
	}
	fmt.Fprintf(stdout, "record: %s repaired: %d row groups, %d rows kept, %d bytes cut after them\n", path, rep.RowGroups, rep.Rows, rep.Dropped)
	if rep.Why != "" {
		fmt.Fprintf(stdout, "record: the index ended early: %s\n", rep.Why)
	}
	return cli.ExitOK
}

// dropTime leaves the time out of log lines: they go to a terminal.
func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}
