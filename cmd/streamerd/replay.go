package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/logsink"
	"github.com/streamerd/streamerd/internal/replay"
)

// replayOptions are the -replay flags.
type replayOptions struct {
	file, addr, speed string
	loop, wait        bool
}

func (r *replayOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&r.file, "replay", "", "serve this recording (`run.parquet`, from the record command) as a live UDPStreamer stream, and exit at its end")
	fs.StringVar(&r.addr, "replay-addr", "127.0.0.1:44500", "-replay: UDP `host:port` to serve on")
	fs.StringVar(&r.speed, "speed", "1", "-replay: times the recorded pace, 0.1 to 10, or max for flat out")
	fs.BoolVar(&r.loop, "loop", false, "-replay: play the recording again from its start after its end")
	fs.BoolVar(&r.wait, "replay-wait", true, "-replay: start once a client connects, so it sees the recording from its first row")
}

// check refuses replay flags without -replay and -replay beside a
// configuration.
func (r *replayOptions) check(fs *flag.FlagSet, withConfig bool) error {
	var given []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "replay-addr", "speed", "loop", "replay-wait":
			given = append(given, "-"+f.Name)
		}
	})
	switch {
	case r.file == "" && len(given) > 0:
		return fmt.Errorf("%s goes with -replay", given[0])
	case r.file != "" && withConfig:
		return errors.New("-replay runs alone: no -config, -import-marte2, -check or -describe")
	case r.file == "":
		return nil
	}
	if _, err := r.speedValue(); err != nil {
		return err
	}
	if _, _, err := r.hostPort(); err != nil {
		return err
	}
	return nil
}

// speedValue is -speed: 0 for max.
func (r *replayOptions) speedValue() (float64, error) {
	if r.speed == "max" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(r.speed, 64)
	if err != nil || v < replay.MinSpeed || v > replay.MaxSpeed {
		return 0, fmt.Errorf("-speed %q: want %v to %v, or max for flat out", r.speed, replay.MinSpeed, replay.MaxSpeed)
	}
	return v, nil
}

func (r *replayOptions) hostPort() (string, int, error) {
	host, p, err := net.SplitHostPort(r.addr)
	port, perr := strconv.Atoi(p)
	if err != nil || perr != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("-replay-addr %q: want host:port such as 127.0.0.1:44500", r.addr)
	}
	return host, port, nil
}

// runReplay runs -replay until the recording ends (exit 0), a signal
// (exit 0) or an error (exit 1).
func runReplay(o options, stdout, stderr io.Writer, stop <-chan struct{}) int {
	sink := logsink.New(stderr, logsink.Options{Buffer: logBuffer, MaxLine: maxLogLine})
	defer sink.Close(logFlush)
	level := o.level
	if level == "" {
		level = "info"
	}
	log, err := newLogger(sink, level, o.format)
	if err != nil {
		fmt.Fprintln(stderr, "streamerd:", err)
		return 2
	}
	speed, _ := o.replay.speedValue()
	host, port, _ := o.replay.hostPort()
	r, err := replay.New(o.replay.file, replay.Options{Server: udpstreamer.Config{Address: host, Port: port}, Speed: speed, Loop: o.replay.loop, WaitClient: o.replay.wait},
		metrics.NewSet(), log)
	if err != nil {
		fmt.Fprintln(stderr, "streamerd:", err)
		return 1
	}
	if err := r.Start(context.Background()); err != nil {
		r.Close()
		fmt.Fprintln(stderr, "streamerd:", err)
		return 1
	}
	if stop == nil {
		var release func()
		stop, release = stopOnSignal(func() *slog.Logger { return log })
		defer release()
	}
	if o.replay.wait {
		log.Info("waiting for a client", "address", r.Streamer().LocalAddr().String())
	}
	select {
	case <-stop:
	case <-r.Done():
	}
	err = r.Err()
	r.Close()
	st := r.Stats()
	fmt.Fprintf(stdout, "streamerd: replayed %d rows (%d loops, %d updates lost as recorded)\n", st.Rows, st.Loops, st.Lost)
	if err != nil {
		fmt.Fprintln(stderr, "streamerd:", err)
		return 1
	}
	return 0
}
