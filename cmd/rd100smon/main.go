// Command rd100smon listens to an RD100S-ENC-UDP v1 position stream and prints its link quality.
//
// Usage:
//
//	rd100smon -listen 127.0.0.1:5100 [-timeout 100ms] [-rate 100] [-tolerance 2ms]
//	          [-freeze 10] [-interval 1s] [-json] [-n packets] [-duration d]
//
// Every -interval it prints one line (one JSON object with -json) in three
// parts: the time since start and the state; "last 1.0s:", the figures of
// that interval only; "totals:", the running totals since start. At the end
// (SIGINT or SIGTERM, -n valid packets, or -duration) a "summary" line gives
// the totals and the period statistics of the whole run.
//
// State: "ok" when nothing below happened; otherwise the conditions found,
// joined by "+":
//   - LOST: no valid packet for -timeout; the stream is declared lost.
//   - FROZEN: the position has not changed for -freeze packets in a row.
//   - LOSSY: sequence numbers missing (lost > 0).
//   - JITTER: periods more than -tolerance from the nominal one (oot > 0).
//   - INVALID: packets with an axis invalid or faulty.
//   - DEGRADED: packets the emitter flagged DEGRADED.
//   - DISORDER: duplicates, late packets, restarts or sequence jumps.
//
// "waiting" before the first packet. An interval's state is that of its own
// figures; the summary's that of the whole run.
//
// Fields:
//   - pkts: valid packets (36 bytes, the right magic and version);
//     pkt/s: their rate.
//   - lost: sequence numbers never received (missing less recovered);
//     loss: lost / (lost + received), in percent.
//   - gaps: jumps forward in the sequence; missing: the numbers they
//     skipped; recovered: missing numbers that arrived late after all.
//   - dups: packets received twice; reorders: late packets that fit between
//     their neighbours.
//   - restarts: seq and t_us went back together (the emitter restarted);
//     jumps_back: seq went back while t_us advanced (a sequence jump);
//     time_jumps: t_us stepped forward by more than 100 nominal periods.
//   - period_us[...]: the emission period, the t_us step between
//     consecutive sequence numbers, in µs: n steps, min, p50 (median), mean,
//     p99, max, std (standard deviation), and oot, the steps out of
//     tolerance (more than -tolerance from 1/-rate).
//   - timeouts: silences longer than -timeout; frozen: frozen-position
//     events, "(FROZEN)" while one lasts.
//   - az_invalid, el_invalid: packets with AZ_VALID or EL_VALID clear;
//     faults=a/e: packets with AZ_FAULT or EL_FAULT set.
//   - sim: packets with the SIM bit: the emitter is a simulator, not an
//     encoder.
//   - degraded: packets with the DEGRADED bit: the emitter is applying a
//     degradation (loss, jitter, freeze, ...) or the packet carries a
//     sequence jump.
//   - discarded: datagrams dropped before counting (size, magic or
//     version wrong).
//
// With -json each line is an object: "type" ("interval" or "summary"),
// "elapsed_s", "state", "interval" (the interval's figures; "run" in the
// summary, over the whole run) and "totals" (the monitor's cumulative
// counters, as datasource/rd100s/client.Stats).
//
// rd100smon exits 0 after an orderly stop, 1 when it cannot listen, and 2
// on bad flags (-h prints this help's flags and exits 0).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/streamerd/streamerd/datasource/rd100s"
	"github.com/streamerd/streamerd/internal/cli"
	client "github.com/streamerd/streamerd/internal/rd100slink"
)

// usage is what -h prints besides the flags.
var usage = cli.Usage{
	Synopsis: []string{"[-listen 127.0.0.1:5100] [-timeout 100ms] [-rate 100] [-interval 1s] [-json] [-n packets] [-duration d]"},
	Summary:  "Listens to an RD100S-ENC-UDP v1 position stream and prints its link quality every -interval, then a summary. It stops after -n valid packets, after -duration or on SIGINT or SIGTERM (exit 0), exits 1 when the socket fails, 2 on bad flags.",
	Examples: []string{
		"rd100smon -listen 127.0.0.1:5100              # one line a second",
		"rd100smon -listen 127.0.0.1:5100 -json -n 500 # JSON lines, stop after 500 packets",
	},
	Notes: glossary,
}

type options struct {
	listen    string
	timeout   time.Duration
	rate      float64
	tolerance time.Duration
	freeze    int
	interval  time.Duration
	json      bool
	n         uint64
	duration  time.Duration
}

func main() {
	cli.Main("rd100smon", cli.Grace, func(ctx context.Context) int { return run(ctx, os.Args[1:], os.Stdout, os.Stderr) })
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := cli.NewFlagSet("rd100smon", stderr, usage)
	var o options
	fs.StringVar(&o.listen, "listen", "127.0.0.1:"+strconv.Itoa(rd100s.DefaultConfig().DestPort), "UDP `address` to listen on")
	fs.DurationVar(&o.timeout, "timeout", client.DefaultStreamTimeout, "declare the stream lost after this silence (> 0)")
	fs.Float64Var(&o.rate, "rate", client.DefaultNominalRate, "nominal emission rate in `Hz` (> 0)")
	fs.DurationVar(&o.tolerance, "tolerance", client.DefaultPeriodTolerance, "admissible distance of a period from 1/-rate (> 0); beyond it counts in oot")
	fs.IntVar(&o.freeze, "freeze", client.DefaultFreezePackets, "identical positions in a row that make a frozen event (negative disables; not 0)")
	fs.DurationVar(&o.interval, "interval", time.Second, "report interval (> 0)")
	fs.BoolVar(&o.json, "json", false, "print JSON lines")
	fs.Uint64Var(&o.n, "n", 0, "stop after this many valid packets (0: no limit)")
	fs.DurationVar(&o.duration, "duration", 0, "stop after this long (0: no limit)")
	if err := cli.Parse(fs, args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() != 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.timeout <= 0:
		return o, fmt.Errorf("-timeout %v: must be positive", o.timeout)
	case !(o.rate > 0) || math.IsInf(o.rate, 0):
		return o, fmt.Errorf("-rate %v: must be a positive number of Hz", o.rate)
	case o.tolerance <= 0:
		return o, fmt.Errorf("-tolerance %v: must be positive", o.tolerance)
	case o.freeze == 0:
		return o, errors.New("-freeze 0: give a number of packets, or a negative one to disable")
	case o.interval <= 0:
		return o, fmt.Errorf("-interval %v: must be positive", o.interval)
	case o.duration < 0:
		return o, fmt.Errorf("-duration %v: must not be negative", o.duration)
	}
	return o, nil
}

// glossary ends -h: the state words and the fields of a line.
const glossary = `
Each line: the state, then "last <interval>:" (figures of that interval
only), then "totals:" (running totals since start). The summary line gives
"whole run:" figures instead of "last".

State: ok, waiting (no packet yet), or the problems found, joined by "+":
  LOST        no valid packet for -timeout: the stream is declared lost
  FROZEN      the position unchanged for -freeze packets in a row
  LOSSY       sequence numbers missing (lost > 0)
  JITTER      periods more than -tolerance from 1/-rate (oot > 0)
  INVALID     packets with an axis invalid or faulty
  DEGRADED    packets the emitter flagged DEGRADED
  DISORDER    duplicates, late packets, restarts or sequence jumps

Fields:
  pkts        valid packets (36 bytes, right magic and version); pkt/s: their rate
  lost        sequence numbers never received (missing less recovered)
  loss        lost / (lost + received), in percent
  gaps        forward jumps of seq; missing: the numbers they skipped
  recovered   missing numbers that arrived late after all
  dups        packets received twice; reorders: late packets that fit between their neighbours
  restarts    seq and t_us went back together: the emitter restarted
  jumps_back  seq went back while t_us advanced: a sequence jump
  time_jumps  t_us stepped forward by more than 100 nominal periods
  period_us   t_us steps between consecutive packets in µs: n, min, p50 (median), mean,
              p99, max, std (standard deviation) and oot: steps out of tolerance,
              more than -tolerance from 1/-rate
  timeouts    silences longer than -timeout; frozen: frozen-position events
  az_invalid  packets with AZ_VALID clear; el_invalid: with EL_VALID clear
  faults=a/e  packets with AZ_FAULT set / with EL_FAULT set
  sim         packets with the SIM bit: the emitter is a simulator, not an encoder
  degraded    packets with the DEGRADED bit: the emitter is degrading the stream
              (loss, jitter, freeze, ...) or the packet carries a sequence jump
  discarded   datagrams of a wrong size, magic or version, not counted in pkts
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return cli.ParseError("rd100smon", stderr, err)
	}
	conn, err := client.ListenUDP(o.listen)
	if err != nil {
		fmt.Fprintln(stderr, "rd100smon:", err)
		return cli.ExitError
	}
	defer conn.Close()
	if err := monitor(ctx, conn, o, stdout); err != nil {
		fmt.Fprintln(stderr, "rd100smon:", err)
		return cli.ExitError
	}
	return cli.ExitOK
}

// monitor runs the receive loop on conn until ctx ends, -n or -duration,
// printing a report every interval and a summary at the end.
func monitor(ctx context.Context, conn *net.UDPConn, o options, out io.Writer) error {
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	m := client.NewMonitor(client.MonitorConfig{
		StreamTimeout:   o.timeout,
		NominalRate:     o.rate,
		FreezePackets:   o.freeze,
		PeriodTolerance: o.tolerance,
	})
	p := &printer{out: out, json: o.json, start: time.Now()}
	p.last = p.start
	if !o.json {
		fmt.Fprintf(out, "rd100smon: listening on %s, timeout %v, nominal %g Hz, tolerance %v\n",
			conn.LocalAddr(), m.Config().StreamTimeout, m.Config().NominalRate, m.Config().PeriodTolerance)
	}
	err := client.Listen(ctx, conn, m, client.RunOptions{
		ReportInterval: o.interval,
		OnReport:       p.report,
		MaxPackets:     o.n,
	})
	p.summary(m, time.Now())
	return err
}

// printer turns the monitor's counters into report lines.
type printer struct {
	out   io.Writer
	json  bool
	start time.Time
	last  time.Time    // of the previous report
	prev  client.Stats // totals at the previous report
}

// figures are the values of one interval (or, in the summary, of the run).
type figures struct {
	Seconds    float64            `json:"seconds"`
	Packets    uint64             `json:"packets"`
	RatePps    float64            `json:"rate_pps"`
	Lost       uint64             `json:"lost"`
	LossPct    float64            `json:"loss_pct"`
	Duplicates uint64             `json:"duplicates"`
	Reorders   uint64             `json:"reorders"`
	Disorder   uint64             `json:"disorder"` // duplicates, reorders, restarts, jumps back
	AzInvalid  uint64             `json:"az_invalid"`
	ElInvalid  uint64             `json:"el_invalid"`
	AzFault    uint64             `json:"az_fault"`
	ElFault    uint64             `json:"el_fault"`
	Degraded   uint64             `json:"degraded"`
	Period     client.PeriodStats `json:"period"`
}

// between returns the figures from the totals a to b over seconds.
func between(a, b *client.Stats, seconds float64, period client.PeriodStats) figures {
	f := figures{Seconds: seconds, Packets: b.Packets - a.Packets, Period: period,
		Duplicates: b.Duplicates - a.Duplicates, Reorders: b.Reorders - a.Reorders,
		AzInvalid: b.AzInvalid - a.AzInvalid, ElInvalid: b.ElInvalid - a.ElInvalid,
		AzFault: b.AzFault - a.AzFault, ElFault: b.ElFault - a.ElFault, Degraded: b.Degraded - a.Degraded}
	f.Disorder = f.Duplicates + f.Reorders + b.Restarts - a.Restarts + b.JumpsBack - a.JumpsBack
	if lostB, lostA := b.Missing-min(b.Recovered, b.Missing), a.Missing-min(a.Recovered, a.Missing); lostB > lostA {
		f.Lost = lostB - lostA
	}
	if seconds > 0 {
		f.RatePps = float64(f.Packets) / seconds
	}
	if received := f.Packets - f.Duplicates; f.Lost > 0 {
		f.LossPct = 100 * float64(f.Lost) / float64(f.Lost+received)
	}
	return f
}

// state names what went wrong in f, with the monitor's current totals s.
func state(s *client.Stats, f *figures) string {
	if !s.HaveLast {
		return "waiting"
	}
	var bad []string
	for _, c := range []struct {
		on   bool
		name string
	}{
		{s.TimedOut, "LOST"}, {s.Frozen, "FROZEN"}, {f.Lost > 0, "LOSSY"}, {f.Period.OutOfTolerance > 0, "JITTER"},
		{f.AzInvalid+f.ElInvalid+f.AzFault+f.ElFault > 0, "INVALID"}, {f.Degraded > 0, "DEGRADED"}, {f.Disorder > 0, "DISORDER"},
	} {
		if c.on {
			bad = append(bad, c.name)
		}
	}
	if len(bad) == 0 {
		return "ok"
	}
	return strings.Join(bad, "+")
}

// line is one JSON report.
type line struct {
	Type       string       `json:"type"` // "interval" or "summary"
	ElapsedS   float64      `json:"elapsed_s"`
	State      string       `json:"state"`
	Interval   *figures     `json:"interval,omitempty"`
	Run        *figures     `json:"run,omitempty"`
	Totals     client.Stats `json:"totals"`
	LastStatus string       `json:"last_status,omitempty"`
}

func (p *printer) report(m *client.Monitor, now time.Time) {
	s := m.Snapshot()
	f := between(&p.prev, &s, now.Sub(p.last).Seconds(), m.TakeIntervalPeriod())
	p.last, p.prev = now, s
	p.emit(line{Type: "interval", Interval: &f}, now, &s)
}

func (p *printer) summary(m *client.Monitor, now time.Time) {
	s := m.Snapshot()
	f := between(&client.Stats{}, &s, now.Sub(p.start).Seconds(), s.Period)
	p.emit(line{Type: "summary", Run: &f}, now, &s)
}

func (p *printer) emit(l line, now time.Time, s *client.Stats) {
	f := l.Interval
	if f == nil {
		f = l.Run
	}
	l.ElapsedS, l.State, l.Totals = now.Sub(p.start).Seconds(), state(s, f), *s
	if p.json {
		if s.HaveLast {
			l.LastStatus = s.Last.Status.String()
		}
		if b, err := json.Marshal(&l); err == nil {
			fmt.Fprintf(p.out, "%s\n", b)
		}
		return
	}
	b := fmt.Appendf(nil, "%s t=%.1fs state=%s | ", l.Type, l.ElapsedS, l.State)
	if l.Interval != nil {
		b = fmt.Appendf(b, "last %.1fs: ", f.Seconds)
	} else {
		b = fmt.Appendf(b, "whole run: ")
	}
	ps := f.Period
	b = fmt.Appendf(b, "pkts=%d pkt/s=%.1f lost=%d loss=%.1f%% dups=%d reorders=%d az_invalid=%d el_invalid=%d faults=%d/%d degraded=%d"+
		" period_us[n=%d min=%d p50=%d mean=%.1f p99=%d max=%d std=%.1f oot=%d] | ",
		f.Packets, f.RatePps, f.Lost, f.LossPct, f.Duplicates, f.Reorders, f.AzInvalid, f.ElInvalid, f.AzFault, f.ElFault, f.Degraded,
		ps.Count, ps.MinUs, ps.P50Us, ps.MeanUs, ps.P99Us, ps.MaxUs, ps.StdUs, ps.OutOfTolerance)
	b = fmt.Appendf(b, "totals: pkts=%d gaps=%d missing=%d recovered=%d dups=%d reorders=%d restarts=%d jumps_back=%d time_jumps=%d"+
		" timeouts=%d frozen=%d%s az_invalid=%d el_invalid=%d faults=%d/%d sim=%d degraded=%d discarded=%d\n",
		s.Packets, s.GapEvents, s.Missing, s.Recovered, s.Duplicates, s.Reorders, s.Restarts, s.JumpsBack, s.TimeJumps,
		s.Timeouts, s.FrozenEvents, frozenMark(s.Frozen), s.AzInvalid, s.ElInvalid, s.AzFault, s.ElFault, s.Sim, s.Degraded,
		s.DiscardSize+s.DiscardMagic+s.DiscardVersion)
	p.out.Write(b)
}

func frozenMark(f bool) string {
	if f {
		return "(FROZEN)"
	}
	return ""
}
