package wire_test

import (
	"fmt"

	"github.com/streamerd/streamerd/datasource/flatudp/wire"
)

func ExampleParseLayout() {
	l, err := wire.ParseLayout("Trigger:uint8, Ia:float32, Wave:float32[16]")
	if err != nil {
		panic(err)
	}
	fmt.Println(wire.FormatSignals(l.Signals), l.Size, "bytes")

	_, err = wire.ParseLayout("Trigger:uint8,Ia:float32,Ia:float64")
	fmt.Println(err)
	// Output:
	// Trigger:uint8,Ia:float32,Wave:float32[16] 69 bytes
	// flatudp/wire: signal "Ia" (row 3): duplicate name (also row 2)
}

// A receiver decodes a big-endian datagram with the layout of the
// signals string its producer printed.
func ExampleLayout_Decode() {
	l, _ := wire.ParseLayout("Counter:uint32,V:uint16[2]")
	datagram := []byte{0, 0, 0, 1, 0, 2, 0, 3} // Counter=1, V={2,3}, big-endian
	vals := make([]float64, l.TotalElements())
	if err := l.Decode(vals, datagram, wire.Big); err != nil {
		panic(err)
	}
	fmt.Println(vals, l.Decode(vals, datagram[:7], wire.Big))
	// Output:
	// [1 2 3] flatudp/wire: datagram size does not match the signal list
}
