package wire_test

import (
	"fmt"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/wire"
	"github.com/streamerd/streamerd/quant"
)

// Example encodes the CONFIG message of the burst configuration of
// docs/udpstreamer.md, as a server sends it, and parses it back as a
// client does; a record breaking the protocol's rules is refused.
func Example() {
	sigs := []wire.SignalInfo{
		{Name: "T0", Type: datasource.Uint32, NumRows: 1, NumCols: 1, TimeSignalIdx: wire.NoTimeSignal, Unit: "us"},
		{Name: "Ch1", Type: datasource.Float32, Quant: quant.Int16, RangeMin: -10, RangeMax: 10, NumDimensions: 1, NumRows: 1, NumCols: 1000,
			TimeMode: datasource.FirstSample, SamplingRate: 1e6, TimeSignalIdx: 0, Unit: "V"},
	}
	msg, err := wire.AppendConfig(nil, sigs)
	if err != nil {
		fmt.Println(err)
		return
	}
	back, err := wire.ParseConfig(msg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("CONFIG: %d bytes (wire.ConfigSize(2) = %d)\n", len(msg), wire.ConfigSize(2))
	for _, s := range back {
		fmt.Printf("%s: %s %s on the wire as %s, %d bytes\n", s.Name, s.Type, s.Shape(), s.WireType(), s.WireBytes())
	}

	sigs[1].TimeSignalIdx = 7
	_, err = wire.AppendConfig(nil, sigs)
	fmt.Println(err)
	// Output:
	// CONFIG: 276 bytes (wire.ConfigSize(2) = 276)
	// T0: uint32 scalar on the wire as uint32, 4 bytes
	// Ch1: float32 [1000] on the wire as int16, 2000 bytes
	// udpstreamer/wire: invalid CONFIG: signal 1 ("Ch1"): TimeSignal: index 7 names no signal
}
