package wire_test

import (
	"fmt"

	"github.com/streamerd/streamerd/datasource/flatudp/wire"
)

func ExampleParseSignals() {
	sigs, err := wire.ParseSignals("Trigger:uint8, Ia:float32, Wave:float32[16]")
	if err != nil {
		panic(err)
	}
	fmt.Println(wire.FormatSignals(sigs), wire.TotalSize(sigs), "bytes")

	_, err = wire.ParseSignals("Trigger:uint8,Ia:float32,Ia:float64")
	fmt.Println(err)
	// Output:
	// Trigger:uint8,Ia:float32,Wave:float32[16] 69 bytes
	// flatudp/wire: signal "Ia" (row 3): duplicate name (also row 2)
}

// A producer packs its signals little-endian (x86 native) into one memory
// block and converts it to the configured byte order into its send buffer.
func ExampleLayout_ConvertOrder() {
	sigs, _ := wire.ParseSignals("Counter:uint32,V:uint16[2]")
	l, _ := wire.NewLayout(sigs)
	memory := []byte{1, 0, 0, 0, 2, 0, 3, 0} // Counter=1, V={2,3}
	out := make([]byte, l.Size)
	l.ConvertOrder(out, memory, wire.Big)
	fmt.Printf("% x\n", out)

	vals := make([]float64, l.TotalElements())
	if err := l.Decode(vals, out, wire.Big); err != nil {
		panic(err)
	}
	fmt.Println(vals, l.Decode(vals, out[:7], wire.Big))
	// Output:
	// 00 00 00 01 00 02 00 03
	// [1 2 3] flatudp/wire: datagram of 7 bytes, expected 8, check the signal list
}
