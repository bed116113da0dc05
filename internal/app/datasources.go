package app

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp"
	"github.com/streamerd/streamerd/datasource/rd100s"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/config"
	"github.com/streamerd/streamerd/internal/replay"
)

// newDataSource constructs the producer of d from its own Config, told
// the period of the thread that synchronises it (which sizes an automatic
// hand-off ring and paces the network thread's wait). Its errors are
// *datasource.ConfigError values, which Build maps to positions.
func newDataSource(d *config.DataSource, period time.Duration, ms *metrics.Set, log *slog.Logger) (datasource.DataSource, error) {
	switch {
	case d.UDPStreamer != nil:
		c := d.UDPStreamer.Config
		c.CyclePeriod = period
		return udpstreamer.New(c, ms, log)
	case d.FlatUDP != nil:
		c := d.FlatUDP.Config
		c.CyclePeriod = period
		return flatudp.New(c, ms, log)
	case d.RD100S != nil:
		return rd100s.New(*d.RD100S, ms, log)
	case d.Replay != nil:
		return replay.New(d.Replay.File, d.Replay.Options, ms, log)
	}
	return nil, fmt.Errorf("datasource %q: class %q is not available in this build", d.Name, d.Class)
}

// statusReporter is a datasource with a JSON-friendly snapshot for /status.
type statusReporter interface{ StatusReport() any }

// statusOf returns the JSON-friendly status of a datasource: its own
// (a Replay's) or its Internals' (a producer's).
func statusOf(ds datasource.DataSource) any {
	if r, ok := ds.(statusReporter); ok {
		return r.StatusReport()
	}
	if r, ok := internalsOf(ds).(statusReporter); ok {
		return r.StatusReport()
	}
	return map[string]string{"name": ds.Name()}
}

// selfSynchronised reports whether ds writes its own signal memory and
// synchronises it from its own thread (a Replay): no RT thread's broker
// may touch that memory, so none is built for it and its signals cannot
// be forced.
func selfSynchronised(ds datasource.DataSource) bool {
	_, ok := ds.(*replay.Replay)
	return ok
}

// streamerOf returns the UDPStreamer that serves ds (a UDPStreamer
// itself, or a Replay's), or nil.
func streamerOf(ds datasource.DataSource) *udpstreamer.Streamer {
	switch d := ds.(type) {
	case *udpstreamer.Streamer:
		return d
	case *replay.Replay:
		return d.Streamer()
	}
	return nil
}
