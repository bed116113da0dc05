package broker_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/streamerd/streamerd/broker"
	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
)

// Example binds a program's slices to the signals of a started
// UDPStreamer by name. Every binding is checked when the broker is built:
// an unknown name, a wrong element type or count is refused with an error
// naming the signal, what it declares and what was given.
func Example() {
	s, err := udpstreamer.New(udpstreamer.Config{Name: "S", Address: "127.0.0.1", Signals: []datasource.Signal{
		{Name: "Counter", Type: datasource.Uint32},
		{Name: "Wave", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 4},
	}}, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	if err := s.Start(context.Background()); err != nil {
		fmt.Println(err)
		return
	}

	counter := make([]uint32, 1)
	_, err = broker.NewMemoryMapSynchronisedOutputBroker(s, []broker.Output{
		broker.Bind("Counter", counter),
		broker.Bind("Wave", make([]float64, 4)), // float64, not float32
		broker.Bind("Nope", counter),
	})
	fmt.Println(errors.Is(err, datasource.ErrSignalMismatch), errors.Is(err, datasource.ErrUnknownSignal))
	fmt.Println(err)

	wave := make([]float32, 4)
	b, err := broker.NewMemoryMapSynchronisedOutputBroker(s, []broker.Output{
		broker.Bind("Counter", counter),
		broker.Bind("Wave", wave),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range 3 { // the control loop
		counter[0], wave[0] = uint32(i), float32(i)/2
		if err := b.Execute(); err != nil { // the copies, then Synchronise
			fmt.Println(err)
			return
		}
	}
	fmt.Println("3 cycles published")
	// Output:
	// true true
	// broker for datasource "S": signal "Wave" is float32[4], the output bound to it is []float64 of 4 elements: element type or count differs from the signal's
	// broker for datasource "S": output "Nope": no such signal (its signals: Counter, Wave)
	// 3 cycles published
}
