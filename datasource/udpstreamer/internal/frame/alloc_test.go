package frame

import (
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

var (
	sinkBytes   []byte
	sinkHeader  Header
	sinkInt     int
	sinkErr     error
	sinkUint64  uint64
	sinkCounter uint32
	sinkBool    bool
)

func assertNoAllocs(t *testing.T, name string, f func()) {
	t.Helper()
	if n := testing.AllocsPerRun(1000, f); n != 0 {
		t.Errorf("%s: %v allocations per run, want 0", name, n)
	}
}

func TestNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)

	buf := make([]byte, 0, 70000)
	h := Header{Type: Data, Counter: 3, FragmentIdx: 1, TotalFragments: 2, PayloadBytes: 4}
	d := append(AppendHeader(nil, h), 1, 2, 3, 4)
	bad := append([]byte(nil), d...)
	bad[0] = 0
	assertNoAllocs(t, "AppendHeader", func() { sinkBytes = AppendHeader(buf[:0], h) })
	assertNoAllocs(t, "ParseHeader", func() { sinkHeader, sinkInt, sinkErr = ParseHeader(d) })
	assertNoAllocs(t, "ParseHeader error", func() { sinkHeader, sinkInt, sinkErr = ParseHeader(bad) })

	l, _ := NewLayout(8016, 1400)
	payload := pattern(8016)
	wire := make([]byte, l.WireSize())
	assertNoAllocs(t, "Layout.PutPayload+PutHeaders", func() {
		l.PutPayload(wire, payload)
		l.PutHeaders(wire, Data, 2)
	})
	assertNoAllocs(t, "Layout.Datagram", func() { sinkBytes = l.Datagram(wire, 5) })

	var g SequenceGate
	c := uint32(0xFFFFFF00)
	assertNoAllocs(t, "SequenceGate.Accept", func() {
		c++
		_, sinkBool = g.Accept(c)
		_, sinkBool = g.Accept(c) // duplicate
	})

	slots := make([]Slot, 0, 4)
	sigs := burstSignals()
	data := make([]byte, 4012)
	assertNoAllocs(t, "data slots", func() {
		var s []Slot
		s, sinkInt = AppendSlots(slots[:0], sigs)
		sinkBytes, sinkErr = s[1].Bytes(data)
		sinkUint64, sinkErr = ParseDataTimestamp(data)
	})
}

func TestReassemblerNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)

	for _, chunk := range []int{0, 1383} {
		l, _ := NewLayout(8016, 1400)
		r := mustReassembler(t, ReassemblerConfig{Type: Data, MaxPayload: 8016, Chunk: chunk})
		if chunk > 0 {
			r.SetExpectedPayload(8016)
		}
		ds := datagrams(l, Data, 0, pattern(8016))
		counter := uint32(0)
		completed := 0
		assertNoAllocs(t, "Reassembler.AddDatagram", func() {
			counter++
			for i := len(ds) - 1; i >= 0; i-- { // last fragment first: exercises the stash
				PutHeader(ds[i], l.header(Data, counter, i))
				p, _, err := r.AddDatagram(ds[i])
				if err != nil {
					panic(err)
				}
				if p != nil {
					completed++
				}
			}
			_, _, sinkErr = r.AddDatagram(ds[0]) // duplicate of a completed update
			_, _, sinkErr = r.AddDatagram(ds[0][:5])
		})
		if completed < 1000 {
			t.Fatalf("completed %d", completed)
		}
		single := AppendHeader(nil, Header{Type: Data, TotalFragments: 1, PayloadBytes: 8016})
		single = append(single, pattern(8016)...)
		assertNoAllocs(t, "Reassembler single fragment", func() {
			counter++
			PutHeader(single, Header{Type: Data, Counter: counter, TotalFragments: 1, PayloadBytes: 8016})
			sinkBytes, sinkCounter, sinkErr = r.AddDatagram(single)
		})
	}
}
