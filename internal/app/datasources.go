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
)

// newDataSource constructs the producer of d from its own Config, told
// the period of the thread that synchronises it (which sizes an automatic
// hand-off ring and paces the network thread's wait). Its errors are
// *datasource.ConfigError values, which Build maps to positions.
func newDataSource(d *config.DataSource, period time.Duration, ms *metrics.Set, log *slog.Logger) (datasource.DataSource, error) {
	switch {
	case d.UDPStreamer != nil:
		c := *d.UDPStreamer
		c.CyclePeriod = period
		return udpstreamer.New(c, ms, log)
	case d.FlatUDP != nil:
		c := *d.FlatUDP
		c.CyclePeriod = period
		return flatudp.New(c, ms, log)
	case d.RD100S != nil:
		return rd100s.New(*d.RD100S, ms, log)
	}
	return nil, fmt.Errorf("datasource %q: class %q is not available in this build", d.Name, d.Class)
}

// statusReporter is a datasource with a JSON-friendly snapshot for /status.
type statusReporter interface{ StatusReport() any }

// statusOf returns the JSON-friendly status of a datasource.
func statusOf(ds datasource.DataSource) any {
	if r, ok := ds.(statusReporter); ok {
		return r.StatusReport()
	}
	return map[string]string{"name": ds.Name()}
}
