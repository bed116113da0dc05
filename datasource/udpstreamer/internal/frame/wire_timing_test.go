package frame

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// BenchmarkFragment8016 places the 8016-byte example of docs/udpstreamer.md into a
// preallocated wire buffer with its headers.
func BenchmarkFragment8016(b *testing.B) { benchFragment(b, 8016) }

// BenchmarkFragmentBurst does the same for the burst example of docs/udpstreamer.md
// example (T0 uint32 + Ch1 float32[1000], 4012 B in 3 datagrams).
func BenchmarkFragmentBurst(b *testing.B) { benchFragment(b, DataPayloadSize(burstSignals())) }

func benchFragment(b *testing.B, size int) {
	l, _ := NewLayout(size, 1400)
	payload := pattern(size)
	wire := make([]byte, l.WireSize())
	b.ReportAllocs()
	b.SetBytes(int64(l.Payload))
	for i := 0; b.Loop(); i++ {
		l.PutPayload(wire, payload)
		l.PutHeaders(wire, Data, uint32(i))
	}
}

func benchReassembly(b *testing.B, size, maxp int, shuffle bool) {
	l, _ := NewLayout(size, maxp)
	r := mustReassembler(b, ReassemblerConfig{Type: Data, MaxPayload: size})
	r.SetExpectedPayload(size)
	ds := datagrams(l, Data, 0, pattern(size))
	order := make([]int, len(ds))
	for i := range order {
		order[i] = i
	}
	if shuffle {
		rand.New(rand.NewPCG(1, 1)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for c := uint32(1); b.Loop(); c++ {
		for _, i := range order {
			binary.LittleEndian.PutUint32(ds[i][offCounter:], c)
			p, _, err := r.AddDatagram(ds[i])
			if err != nil {
				b.Fatal(err)
			}
			sinkBytes = p
		}
	}
	if r.Stats().Completed == 0 {
		b.Fatal("nothing completed")
	}
}

func BenchmarkReassemble8016(b *testing.B) {
	b.Run("InOrder", func(b *testing.B) { benchReassembly(b, 8016, 1400, false) })
	b.Run("Shuffled", func(b *testing.B) { benchReassembly(b, 8016, 1400, true) })
}

func BenchmarkReassembleBurst(b *testing.B) { benchReassembly(b, 4012, 1400, true) }

func BenchmarkParseHeader(b *testing.B) {
	d := append(AppendHeader(nil, Header{Type: Data, TotalFragments: 1, PayloadBytes: 4}), 1, 2, 3, 4)
	b.ReportAllocs()
	for b.Loop() {
		sinkHeader, sinkInt, sinkErr = ParseHeader(d)
	}
}
