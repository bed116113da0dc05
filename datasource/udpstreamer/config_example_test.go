package udpstreamer_test

import (
	"fmt"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/quant"
)

// ExampleAppendConfig encodes the CONFIG message of the burst
// configuration of docs/udpstreamer.md, as a server sends it, and parses
// it back as a client does; a signal breaking the protocol's rules is
// refused.
func ExampleAppendConfig() {
	sigs := []datasource.Signal{
		{Name: "T0", Type: datasource.Uint32, Unit: "us"},
		{Name: "Ch1", Type: datasource.Float32, QuantizedType: quant.Int16, RangeMin: -10, RangeMax: 10,
			NumberOfDimensions: 1, NumberOfElements: 1000,
			TimeMode: datasource.FirstSample, SamplingRate: 1e6, TimeSignal: "T0", Unit: "V"},
	}
	msg, err := udpstreamer.AppendConfig(nil, sigs)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := client.ParseConfig(msg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("CONFIG: %d bytes\n", len(msg))
	for i, s := range cfg.Signals {
		fmt.Printf("%s: %s[%d] on the wire as %s\n", s.Name, s.Type, s.Elements(), cfg.WireType(i))
	}

	sigs[1].TimeSignal = "T1"
	_, err = udpstreamer.AppendConfig(nil, sigs)
	fmt.Println(err)
	// Output:
	// CONFIG: 276 bytes
	// T0: uint32[1] on the wire as uint32
	// Ch1: float32[1000] on the wire as int16
	// udpstreamer: invalid CONFIG: signal 1 ("Ch1"): TimeSignal: names no signal: "T1"
}
