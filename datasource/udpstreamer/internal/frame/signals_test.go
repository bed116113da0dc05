package frame

import (
	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/wire"
	"github.com/streamerd/streamerd/quant"
)

// burstSignals is the burst example of docs/udpstreamer.md.
func burstSignals() []SignalInfo {
	return []SignalInfo{
		{Name: "T0", Type: datasource.Uint32, NumRows: 1, NumCols: 1, RangeMax: 1, TimeSignalIdx: wire.NoTimeSignal, Unit: "us"},
		{Name: "Ch1", Type: datasource.Float32, NumDimensions: 1, NumRows: 1, NumCols: 1000, RangeMax: 1,
			TimeMode: datasource.FirstSample, SamplingRate: 1e6, TimeSignalIdx: 0, Unit: "V"},
	}
}

// scalarSignals is the minimal example of docs/udpstreamer.md.
func scalarSignals() []SignalInfo {
	return []SignalInfo{
		{Name: "Counter", Type: datasource.Uint32, NumRows: 1, NumCols: 1, RangeMax: 1, TimeSignalIdx: wire.NoTimeSignal},
		{Name: "Voltage", Type: datasource.Float32, Quant: quant.Uint16, NumRows: 1, NumCols: 1, RangeMin: -10, RangeMax: 10, TimeSignalIdx: wire.NoTimeSignal, Unit: "V"},
	}
}
