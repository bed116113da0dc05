package quant

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// These tests compare the selected kernels (the AVX-512 ones when built with
// GOEXPERIMENT=simd on a capable CPU) with the portable ones. Without SIMD
// both sides are the portable kernel and the tests still pass trivially.

func diffKernels(t *testing.T, q *Quantizer, s64 []float64, s32 []float32) {
	t.Helper()
	size := q.w.Size()
	got, want := make([]byte, len(s64)*size), make([]byte, len(s64)*size)
	n1, n2 := q.EncodeFloat64(got, s64), encodePortable(q, want, s64)
	if n1 != n2 || !bytes.Equal(got, want) {
		t.Fatalf("%v [%v,%v] EncodeFloat64 (simd=%v) differs from portable: nans %d/%d\n in %v\ngot  %x\nwant %x",
			q.w, q.min, q.max, SIMD(), n1, n2, s64, got, want)
	}
	got, want = make([]byte, len(s32)*size), make([]byte, len(s32)*size)
	n1, n2 = q.EncodeFloat32(got, s32), encodePortable(q, want, s32)
	if n1 != n2 || !bytes.Equal(got, want) {
		t.Fatalf("%v [%v,%v] EncodeFloat32 (simd=%v) differs from portable: nans %d/%d\n in %v\ngot  %x\nwant %x",
			q.w, q.min, q.max, SIMD(), n1, n2, s32, got, want)
	}
}

// diffDecode compares the selected decode kernels with the portable ones on
// the codes in b.
func diffDecode(t *testing.T, q *Quantizer, b []byte) {
	t.Helper()
	n := len(b) / q.w.Size()
	got64, want64 := make([]float64, n), make([]float64, n)
	got32, want32 := make([]float32, n), make([]float32, n)
	q.DecodeFloat64(got64, b)
	decode(q, want64, b)
	q.DecodeFloat32(got32, b)
	decode(q, want32, b)
	for i := range n {
		if math.Float64bits(got64[i]) != math.Float64bits(want64[i]) || math.Float32bits(got32[i]) != math.Float32bits(want32[i]) {
			t.Fatalf("%v [%v,%v] decode (simd=%v) of element %d: %v/%v, portable %v/%v",
				q.w, q.min, q.max, SIMD(), i, got64[i], got32[i], want64[i], want32[i])
		}
	}
}

func TestSIMDDecodeMatchesPortable(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	b := make([]byte, 2*70000)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	for _, w := range wireTypes {
		for _, r := range testRanges {
			q := mustNew(t, w, r[0], r[1])
			diffDecode(t, &q, b)
			for n := 0; n < 70; n++ {
				diffDecode(t, &q, b[n:n+n*w.Size()])
			}
		}
	}
}

func TestSIMDMatchesPortable(t *testing.T) {
	t.Logf("SIMD kernels selected: %v", SIMD())
	rng := rand.New(rand.NewPCG(7, 8))
	for _, w := range wireTypes {
		l, _ := w.levels()
		for _, r := range append(testRanges, [2]float64{0, l}) { // [0, L]: t == v, ties at .5
			q := mustNew(t, w, r[0], r[1])
			// Specials, range ends, exact ties and their neighbours.
			var s64 []float64
			s64 = append(s64, math.NaN(), -math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1),
				5e-324, -5e-324, 1e-310, float64(math.Float32frombits(1)), math.MaxFloat64, -math.MaxFloat64,
				r[0], r[1], math.Nextafter(r[0], -1e308), math.Nextafter(r[1], 1e308))
			for c := q.MinCode(); c < q.MaxCode(); c += 1 + (q.MaxCode()-q.MinCode())/97 {
				mid := (q.Value(c) + q.Value(c+1)) / 2
				s64 = append(s64, mid, math.Nextafter(mid, 1e308), math.Nextafter(mid, -1e308), q.Value(c))
			}
			for range 500 {
				s64 = append(s64, r[0]+(rng.Float64()*1.2-0.1)*(r[1]-r[0]), math.Float64frombits(rng.Uint64()))
			}
			s32 := make([]float32, len(s64))
			for i, v := range s64 {
				s32[i] = float32(v)
			}
			diffKernels(t, &q, s64, s32)
			// Every length and offset around the vector width, for the tails.
			for n := 0; n < 70; n++ {
				diffKernels(t, &q, s64[n:n+n], s32[n:n+n])
			}
		}
	}
}

// FuzzSIMD feeds raw bit patterns (any NaN payload, infinities, denormals)
// to the selected and the portable kernels and requires identical bytes and
// NaN counts.
func FuzzSIMD(f *testing.F) {
	seed := make([]byte, 0, 8*40)
	for _, v := range []float64{0, 1, -1, 0.5, 1.5, 2.5, math.NaN(), math.Inf(1), math.Inf(-1), 5e-324, 1e300} {
		seed = binary.LittleEndian.AppendUint64(seed, math.Float64bits(v))
	}
	for range 29 {
		seed = binary.LittleEndian.AppendUint64(seed, math.Float64bits(0.25))
	}
	for _, w := range wireTypes {
		f.Add(uint8(w), -1.0, 1.0, seed)
		f.Add(uint8(w), 0.0, 255.0, seed)
	}
	f.Fuzz(func(t *testing.T, w uint8, lo, hi float64, b []byte) {
		q, err := New(WireType(w), lo, hi)
		if err != nil {
			return
		}
		s64 := make([]float64, len(b)/8)
		for i := range s64 {
			s64[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
		s32 := make([]float32, len(b)/4)
		for i := range s32 {
			s32[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		diffKernels(t, &q, s64, s32)
		diffDecode(t, &q, b)
	})
}
