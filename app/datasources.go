package app

import (
	"fmt"
	"log/slog"

	"github.com/VictoriaMetrics/metrics"

	"streamerd/config"
	"streamerd/datasource"
	"streamerd/datasource/flatudp"
	"streamerd/datasource/udpstreamer"
	"streamerd/flatproto"
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
	case config.ClassFlatUDP:
		p := d.FlatUDP
		mode := flatudp.IndependentThread
		if p.ExecutionMode == config.RealTimeThread {
			mode = flatudp.RealTimeThread
		}
		order := flatproto.Little
		if p.BigEndian {
			order = flatproto.Big
		}
		return flatudp.New(flatudp.Config{
			Name:                 d.Name,
			Address:              p.Address.String(),
			Port:                 int(p.Port),
			ExecutionMode:        mode,
			NumberOfPreTriggers:  p.NumberOfPreTriggers,
			NumberOfPostTriggers: p.NumberOfPostTriggers,
			NumberOfBuffers:      p.NumberOfBuffers,
			ByteOrder:            order,
			TTL:                  p.TTL,
			Interface:            p.Interface,
			Loopback:             p.Loopback,
			CPUMask:              p.CPUMask,
			StackSize:            p.StackSize,
			Signals:              d.Signals,
		}, ms, log)
	}
	return nil, fmt.Errorf("datasource %q: class %q is not available in this build", d.Name, d.Class)
}

// statusOf returns the JSON-friendly status of a datasource.
func statusOf(ds datasource.DataSource) any {
	switch d := ds.(type) {
	case *udpstreamer.Streamer:
		return d.Status()
	case *flatudp.Sender:
		return d.Status()
	}
	return map[string]string{"name": ds.Name()}
}
