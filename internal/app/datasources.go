package app

import (
	"fmt"
	"log/slog"
	"math"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp"
	"github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/datasource/rd100s"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/config"
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
			Priority:       p.Priority,
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
		order := wire.Little
		if p.BigEndian {
			order = wire.Big
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
	case config.ClassRD100S:
		return newRD100S(d, ms, log)
	}
	return nil, fmt.Errorf("datasource %q: class %q is not available in this build", d.Name, d.Class)
}

// newRD100S maps the section-8 keys of the configuration to the encoder.
func newRD100S(d *config.DataSource, ms *metrics.Set, log *slog.Logger) (datasource.DataSource, error) {
	p := d.RD100S
	unit := func(key, s string) (rd100s.Unit, error) {
		u, err := rd100s.ParseUnit(s)
		if err != nil {
			return 0, datasource.ParamError(d.Name, key, "%v", err)
		}
		return u, nil
	}
	azU, err := unit("azimuth_unit", p.AzimuthUnit)
	if err != nil {
		return nil, err
	}
	elU, err := unit("elevation_unit", p.ElevationUnit)
	if err != nil {
		return nil, err
	}
	rateU, err := unit("rate_unit", p.RateUnit)
	if err != nil {
		return nil, err
	}
	if p.Degradations.SeqJump < math.MinInt32 || p.Degradations.SeqJump > math.MaxInt32 {
		return nil, datasource.ParamError(d.Name, "seq_jump", "must fit in a signed 32-bit delta, got %d", p.Degradations.SeqJump)
	}
	g := p.Degradations
	return rd100s.New(rd100s.Config{
		Name:            d.Name,
		DestHost:        p.DestHost,
		DestPort:        int(p.DestPort),
		SrcPort:         int(p.SrcPort),
		RateHz:          p.RateHz,
		FirstSeq:        p.FirstSeq,
		AzimuthSignal:   p.AzimuthSignal,
		ElevationSignal: p.ElevationSignal,
		AzRateSignal:    p.AzRateSignal,
		ElRateSignal:    p.ElRateSignal,
		AzimuthUnit:     azU,
		ElevationUnit:   elU,
		RateUnit:        rateU,
		StatusSignal:    p.StatusSignal,
		AzValid:         p.AzValid,
		ElValid:         p.ElValid,
		AzRefOK:         p.AzRefOK,
		ElRefOK:         p.ElRefOK,
		AzFault:         p.AzFault,
		ElFault:         p.ElFault,
		CPUMask:         p.CPUMask,
		Seed:            p.Seed,
		Degradations: rd100s.Degradations{
			LossProbability:      g.LossProbability,
			LossEveryN:           g.LossEveryN,
			BurstLoss:            g.BurstLoss,
			DuplicateProbability: g.DuplicateProbability,
			ReorderWindow:        g.ReorderWindow,
			Jitter:               g.Jitter,
			Freeze:               g.Freeze,
			InvalidAz:            g.InvalidAz,
			InvalidEl:            g.InvalidEl,
			SeqJump:              int32(g.SeqJump),
			Silence:              g.Silence,
		},
		Signals: d.Signals,
	}, ms, log)
}

// statusOf returns the JSON-friendly status of a datasource.
func statusOf(ds datasource.DataSource) any {
	switch d := ds.(type) {
	case *udpstreamer.Streamer:
		return d.Status()
	case *flatudp.Sender:
		return d.Status()
	case *rd100s.Encoder:
		return d.Status()
	}
	return map[string]string{"name": ds.Name()}
}
