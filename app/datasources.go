package app

import (
	"fmt"
	"log/slog"

	"github.com/VictoriaMetrics/metrics"

	"streamerd/config"
	"streamerd/datasource"
	"streamerd/datasource/udpstreamer"
)

// newDataSource constructs the producer of class d.Class. Its validation
// errors are *datasource.ConfigError values, which Build maps to positions.
func newDataSource(d *config.DataSource, ms *metrics.Set, log *slog.Logger) (datasource.DataSource, error) {
	switch d.Class {
	case config.ClassUDPStreamer:
		p := d.UDPStreamer
		addr := ""
		if p.Address.IsValid() {
			addr = p.Address.String()
		}
		return udpstreamer.New(udpstreamer.Config{
			Name:           d.Name,
			Address:        addr,
			Port:           int(p.Port),
			MaxPayloadSize: p.MaxPayloadSize,
			CPUMask:        p.CPUMask,
			StackSize:      p.StackSize,
			AllowedClients: p.AllowedClients,
			Signals:        d.Signals,
		}, ms, log)
	}
	return nil, fmt.Errorf("datasource %q: class %q is not available in this build", d.Name, d.Class)
}

// statusOf returns the JSON-friendly status of a datasource.
func statusOf(ds datasource.DataSource) any {
	if s, ok := ds.(interface{ Status() udpstreamer.Status }); ok {
		return s.Status()
	}
	return map[string]string{"name": ds.Name()}
}
