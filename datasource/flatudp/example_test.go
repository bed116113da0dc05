package flatudp_test

import (
	"fmt"
	"log/slog"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp"
)

// A MARTe2 UDPSender in IndependentThread mode, and the signals string a
// udpscope user pastes into the receiver.
func ExampleSender_SignalsString() {
	s, err := flatudp.New(flatudp.Config{
		Name:                 "Flat",
		Address:              "127.0.0.1",
		NumberOfPreTriggers:  2,
		NumberOfPostTriggers: 3,
		Signals: []datasource.Signal{
			{Name: "Trigger", Type: datasource.Uint8},
			{Name: "Ia", Type: datasource.Float32},
			{Name: "Wave", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 16},
		},
	}, metrics.NewSet(), slog.New(slog.DiscardHandler))
	if err != nil {
		panic(err)
	}
	fmt.Println(s.SignalsString())

	_, err = flatudp.New(flatudp.Config{
		Name:    "Flat",
		Address: "127.0.0.1",
		Signals: []datasource.Signal{{Name: "Ia", Type: datasource.Float32}},
	}, metrics.NewSet(), nil)
	fmt.Println(err)
	// Output:
	// Trigger:uint8,Ia:float32,Wave:float32[16]
	// datasource "Flat": signal "Ia": Name: in IndependentThread mode the first signal must be the scalar uint8 "Trigger", got "Ia" float32[1]
}
