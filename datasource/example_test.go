package datasource_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
)

// Example drives a producer through the DataSource contract in MARTe2's
// order, as the streamerd daemon does, and shows the errors of calls out
// of that order.
func Example() {
	var ds datasource.DataSource
	ds, err := udpstreamer.New(udpstreamer.Config{Name: "S", Address: "127.0.0.1", Signals: []datasource.Signal{
		{Name: "Counter", Type: datasource.Uint32},
		{Name: "Wave", Type: datasource.Int16, NumberOfDimensions: 1, NumberOfElements: 8},
	}}, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ds.Synchronise()) // before AllocateMemory
	if err := ds.AllocateMemory(); err != nil {
		fmt.Println(err)
		return
	}
	for i, s := range ds.Signals() {
		buf, err := ds.GetSignalMemoryBuffer(i)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s × %d, %d bytes of signal memory\n", s.Name, s.Type, s.Elements(), len(buf))
	}
	if err := ds.PrepareNextState(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ds.PrepareNextState()) // twice
	if err := ds.Synchronise(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ds.Close(), ds.Close()) // the second does nothing
	err = ds.Synchronise()
	fmt.Println(err, errors.Is(err, datasource.ErrClosed))
	fmt.Println(ds.(interface{ Start(context.Context) error }).Start(context.Background()))
	// Output:
	// datasource "S": Synchronise: signal memory not allocated (call AllocateMemory or Start first)
	// Counter: uint32 × 1, 4 bytes of signal memory
	// Wave: int16 × 8, 16 bytes of signal memory
	// datasource "S": PrepareNextState: already opened or started
	// <nil> <nil>
	// datasource "S": Synchronise: closed true
	// datasource "S": Start: closed
}

// ExampleTypeOf names the signal type of a Go element type, the check a
// broker makes when a slice is bound to a signal.
func ExampleTypeOf() {
	type volts float32
	fmt.Println(datasource.TypeOf[float64](), datasource.TypeOf[volts](), datasource.TypeOf[int16]().Size())
	t, err := datasource.ParseType("uint16")
	fmt.Println(t, err)
	_, err = datasource.ParseType("float16")
	fmt.Println(err)
	// Output:
	// float64 float32 2
	// uint16 <nil>
	// unknown type "float16" (want one of uint8, int8, uint16, int16, uint32, int32, uint64, int64, float32, float64, char8)
}
