package wire_test

import (
	"fmt"

	"github.com/streamerd/streamerd/datasource/rd100s/wire"
)

func ExampleAppendPacket() {
	p := wire.Packet{
		Seq:    7,
		TUs:    70_000,
		AzMdeg: wire.NormalizeAzimuthMdeg(-500), // -0.5°
		ElMdeg: 45250,                           // 45.25°
		Status: wire.AzValid | wire.ElValid | wire.Sim,
	}
	var buf [wire.PacketSize]byte
	b := wire.AppendPacket(buf[:0], &p)
	q, err := wire.ParsePacket(b)
	fmt.Println(len(b), q.AzMdeg, q.ElMdeg, q.Status, err)
	// Output: 36 359500 45250 AZ_VALID|EL_VALID|SIM <nil>
}
