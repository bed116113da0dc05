package gam_test

import (
	"fmt"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/gam"
)

// A 1 kHz sine sampled at 1 MSps, 1000 samples per 1 ms cycle: each Execute
// writes the next millisecond of an unbroken waveform.
func ExampleNewWaveform() {
	w, err := gam.NewWaveform("sine", gam.WaveformConfig{
		Shape: gam.Sine, Amplitude: 1, Frequency: 1000, SamplingRate: 1e6,
		Type: datasource.Float32, Elements: 1000, CyclePeriod: time.Millisecond,
	})
	if err != nil {
		panic(err)
	}
	out := w.Outputs()[0] // hand out.Mem to a broker
	w.Execute()
	v := gam.Values[float32](out)
	fmt.Println(out.Name, out.Type, out.Elements, len(out.Mem))
	fmt.Printf("%.3f %.3f %.3f\n", v[0], v[250], v[750])
	// Output:
	// sine float32 1000 4000
	// 0.000 1.000 -1.000
}
