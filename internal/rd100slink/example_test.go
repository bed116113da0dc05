package rd100slink_test

import (
	"fmt"
	"time"

	"github.com/streamerd/streamerd/datasource/rd100s/wire"
	"github.com/streamerd/streamerd/internal/rd100slink"
)

func ExampleMonitor() {
	m := rd100slink.NewMonitor(rd100slink.MonitorConfig{})
	now := time.Now()
	var b []byte
	for _, seq := range []uint32{10, 11, 13, 12, 13} {
		b = wire.AppendPacket(b[:0], &wire.Packet{Seq: seq, TUs: uint64(seq) * 10_000})
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
