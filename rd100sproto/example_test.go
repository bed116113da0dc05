package rd100sproto_test

import (
	"fmt"
	"time"

	"streamerd/rd100sproto"
)

func ExampleAppendPacket() {
	p := rd100sproto.Packet{
		Seq:    7,
		TUs:    70_000,
		AzMdeg: rd100sproto.NormalizeAzimuthMdeg(rd100sproto.DegreesToMdeg(-0.5)),
		ElMdeg: int32(rd100sproto.DegreesToMdeg(45.25)),
		Status: rd100sproto.AzValid | rd100sproto.ElValid | rd100sproto.Sim,
	}
	var buf [rd100sproto.PacketSize]byte
	b := rd100sproto.AppendPacket(buf[:0], &p)
	q, err := rd100sproto.ParsePacket(b)
	fmt.Println(len(b), q.AzMdeg, q.ElMdeg, q.Status, err)
	// Output: 36 359500 45250 AZ_VALID|EL_VALID|SIM <nil>
}

func ExampleMonitor() {
	m := rd100sproto.NewMonitor(rd100sproto.MonitorConfig{})
	now := time.Now()
	var b []byte
	for _, seq := range []uint32{10, 11, 13, 12, 13} {
		b = rd100sproto.AppendPacket(b[:0], &rd100sproto.Packet{Seq: seq, TUs: uint64(seq) * 10_000})
		fmt.Println(m.Observe(b, now))
	}
	s := m.Snapshot()
	fmt.Printf("missing=%d recovered=%d duplicates=%d\n", s.Missing, s.Recovered, s.Duplicates)
	// Output:
	// first
	// in-order
	// gap
	// reorder
	// duplicate
	// missing=1 recovered=1 duplicates=1
}
