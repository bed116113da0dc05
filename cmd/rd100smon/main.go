// Command rd100smon listens to an RD100S-ENC-UDP v1 position stream and prints its link quality.
//
// Usage:
//
//	rd100smon -listen 127.0.0.1:5100 [-timeout 100ms] [-json] [-n packets] [-duration d]
//
// Once a second it prints one line (or one JSON object with -json): packets
// per second, sequence gaps, duplicates, reorders, restarts, the emission
// period measured from t_us over the last interval, stream timeouts, frozen
// position, invalid axes and the SIM bit. It stops on SIGINT or SIGTERM,
// after -n valid packets or after -duration, and prints a final summary.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/streamerd/streamerd/datasource/rd100s/client"
	"github.com/streamerd/streamerd/internal/cli"
)

// usage is what -h prints besides the flags.
var usage = cli.Usage{
	Synopsis: []string{"[-listen 127.0.0.1:5100] [-timeout 100ms] [-rate 100] [-interval 1s] [-json] [-n packets] [-duration d]"},
	Summary:  "Listens to an RD100S-ENC-UDP v1 position stream and prints its link quality every -interval, then a summary. It stops after -n valid packets, after -duration or on SIGINT or SIGTERM (exit 0), exits 1 when the socket fails, 2 on bad flags.",
	Examples: []string{
		"rd100smon -listen 127.0.0.1:5100              # one line a second",
		"rd100smon -listen 127.0.0.1:5100 -json -n 500 # JSON lines, stop after 500 packets",
	},
}

type options struct {
	listen   string
	timeout  time.Duration
	rate     float64
	freeze   int
	interval time.Duration
	json     bool
	n        uint64
	duration time.Duration
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rd100smon", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cli.SetUsage(fs, usage)
	var o options
	fs.StringVar(&o.listen, "listen", "127.0.0.1:5100", "UDP `address` to listen on")
	fs.DurationVar(&o.timeout, "timeout", client.DefaultStreamTimeout, "declare the stream lost after this silence")
	fs.Float64Var(&o.rate, "rate", client.DefaultNominalRate, "nominal emission rate in Hz")
	fs.IntVar(&o.freeze, "freeze", client.DefaultFreezePackets, "identical positions in a row that make a frozen event (negative disables)")
	fs.DurationVar(&o.interval, "interval", time.Second, "report interval")
	fs.BoolVar(&o.json, "json", false, "print JSON lines")
	fs.Uint64Var(&o.n, "n", 0, "stop after this many valid packets (0: no limit)")
	fs.DurationVar(&o.duration, "duration", 0, "stop after this long (0: no limit)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cli.ExitOK
		}
		return cli.ExitUsage
	}
	if fs.NArg() != 0 || o.interval <= 0 || o.freeze == 0 {
		fmt.Fprintln(stderr, "rd100smon: bad arguments (see -h)")
		return 2
	}
	addr, err := net.ResolveUDPAddr("udp", o.listen)
	if err != nil {
		fmt.Fprintln(stderr, "rd100smon:", err)
		return 1
	}
	conn, err := net.ListenUDP("udp", addr)
	if err != nil {
		fmt.Fprintln(stderr, "rd100smon:", err)
		return 1
	}
	defer conn.Close()
	_ = conn.SetReadBuffer(1 << 20)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := monitor(ctx, conn, o, stdout); err != nil {
		fmt.Fprintln(stderr, "rd100smon:", err)
		return 1
	}
	return 0
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
		StreamTimeout: o.timeout,
		NominalRate:   o.rate,
		FreezePackets: o.freeze,
	})
	p := &printer{out: out, json: o.json, start: time.Now()}
	p.last = p.start
	if !o.json {
		fmt.Fprintf(out, "rd100smon: listening on %s, timeout %v, nominal %g Hz\n", conn.LocalAddr(), m.Config().StreamTimeout, m.Config().NominalRate)
	}
	err := client.Listen(ctx, conn, m, client.RunOptions{
		ReportInterval: o.interval,
		OnReport:       p.report,
		MaxPackets:     o.n,
	})
	p.summary(m, time.Now())
	return err
}

type printer struct {
	out         io.Writer
	json        bool
	start, last time.Time
	lastPackets uint64
}

// line is one JSON report.
type line struct {
	Type      string              `json:"type"` // "interval" or "summary"
	ElapsedS  float64             `json:"elapsed_s"`
	RatePps   float64             `json:"rate_pps"` // valid packets per second over the interval (summary: whole run)
	Interval  *client.PeriodStats `json:"interval_period,omitempty"`
	Stats     client.Stats        `json:"stats"`
	LastState string              `json:"last_status,omitempty"`
}

func (p *printer) report(m *client.Monitor, now time.Time) {
	s := m.Snapshot()
	ip := m.TakeIntervalPeriod()
	rate := float64(s.Packets-p.lastPackets) / now.Sub(p.last).Seconds()
	p.last, p.lastPackets = now, s.Packets
	p.emit("interval", now, rate, &ip, &s)
}

func (p *printer) summary(m *client.Monitor, now time.Time) {
	s := m.Snapshot()
	rate := 0.0
	if el := now.Sub(p.start).Seconds(); el > 0 {
		rate = float64(s.Packets) / el
	}
	p.emit("summary", now, rate, nil, &s)
}

func (p *printer) emit(kind string, now time.Time, rate float64, ip *client.PeriodStats, s *client.Stats) {
	el := now.Sub(p.start).Seconds()
	if p.json {
		l := line{Type: kind, ElapsedS: el, RatePps: rate, Interval: ip, Stats: *s}
		if s.HaveLast {
			l.LastState = s.Last.Status.String()
		}
		b, err := json.Marshal(&l)
		if err == nil {
			fmt.Fprintf(p.out, "%s\n", b)
		}
		return
	}
	ps := s.Period
	if ip != nil {
		ps = *ip
	}
	state := "ok"
	switch {
	case !s.HaveLast:
		state = "waiting"
	case s.TimedOut:
		state = "LOST"
	}
	fmt.Fprintf(p.out, "%s t=%.1fs %s pkt/s=%.1f pkts=%d gaps=%d missing=%d recovered=%d dups=%d reorders=%d restarts=%d jumps_back=%d"+
		" period_us[n=%d mean=%.1f std=%.1f min=%d p50=%d p99=%d max=%d oot=%d]"+
		" timeouts=%d frozen=%d%s az_invalid=%d el_invalid=%d faults=%d/%d sim=%d degraded=%d discarded=%d\n",
		kind, el, state, rate, s.Packets, s.GapEvents, s.Missing, s.Recovered, s.Duplicates, s.Reorders, s.Restarts, s.JumpsBack,
		ps.Count, ps.MeanUs, ps.StdUs, ps.MinUs, ps.P50Us, ps.P99Us, ps.MaxUs, ps.OutOfTolerance,
		s.Timeouts, s.FrozenEvents, frozenMark(s.Frozen), s.AzInvalid, s.ElInvalid, s.AzFault, s.ElFault, s.Sim, s.Degraded,
		s.DiscardSize+s.DiscardMagic+s.DiscardVersion)
}

func frozenMark(f bool) string {
	if f {
		return "(FROZEN)"
	}
	return ""
}
