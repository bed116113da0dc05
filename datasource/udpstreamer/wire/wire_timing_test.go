package wire

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkFragment8016 fragments the protocol spec's 8016-byte example into a
// preallocated wire buffer.
func BenchmarkFragment8016(b *testing.B) {
	l, _ := NewLayout(8016, 1400)
	payload := pattern(8016)
	wire := make([]byte, l.WireSize())
	b.Run("AppendWire", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(l.Payload))
		for i := 0; b.Loop(); i++ {
			sinkBytes = l.AppendWire(wire[:0], Data, uint32(i), payload)
		}
	})
	b.Run("InPlace", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(l.Payload))
		for i := 0; b.Loop(); i++ {
			w := l.Writer(wire)
			w.Write(payload)
			l.PutHeaders(wire, Data, uint32(i))
		}
	})
}

// BenchmarkFragmentBurst serialises the datasource spec's burst example (T0
// uint32 + Ch1 float32[1000], 4012 B in 3 datagrams) in place, element by element
// as a serialiser would, and as raw copies of signal memory.
func BenchmarkFragmentBurst(b *testing.B) {
	sigs := burstSignals()
	l, _ := NewLayout(DataPayloadSize(sigs), 1400)
	wire := make([]byte, l.WireSize())
	samples := make([]float32, 1000)
	raw := make([]byte, 4000)
	for i := range samples {
		samples[i] = float32(math.Sin(float64(i) / 50))
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(samples[i]))
	}
	b.Run("PerElement", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(l.Payload))
		for i := 0; b.Loop(); i++ {
			w := l.Writer(wire)
			w.PutUint64(uint64(i) * 1000)
			w.PutUint32(uint32(i))
			for _, v := range samples {
				w.PutUint32(math.Float32bits(v))
			}
			l.PutHeaders(wire, Data, uint32(i))
		}
	})
	b.Run("RawCopy", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(l.Payload))
		for i := 0; b.Loop(); i++ {
			w := l.Writer(wire)
			w.PutUint64(uint64(i) * 1000)
			w.PutUint32(uint32(i))
			w.Write(raw)
			l.PutHeaders(wire, Data, uint32(i))
		}
	})
}

func benchReassembly(b *testing.B, size, maxp int, shuffle bool) {
	l, _ := NewLayout(size, maxp)
	r := mustReassembler(b, ReassemblerConfig{Type: Data, MaxPayload: size})
	r.SetExpectedPayload(size)
	ds := l.AppendDatagrams(nil, l.AppendWire(nil, Data, 0, pattern(size)))
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
