package quant

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// These tests compare every kernel this build and CPU support (the AVX-512
// and AVX2 ones when built with GOEXPERIMENT=simd on a capable CPU) with
// the portable one. Without SIMD only the portable kernel runs and the
// tests pass trivially.

// kernels returns the supported kernels other than the portable one.
func kernels() []kernel {
	var ks []kernel
	for _, k := range []kernel{kernelAVX2, kernelAVX512} {
		if k.supported() {
			ks = append(ks, k)
		}
	}
	return ks
}

// useKernel makes k the selected kernel until the test ends.
func useKernel(t testing.TB, k kernel) {
	t.Helper()
	if !k.supported() {
		t.Skipf("skipped: kernel %v not supported here", k)
	}
	old := selected
	selected = k
	t.Cleanup(func() { selected = old })
}

func diffKernels(t *testing.T, q *Quantizer, s64 []float64, s32 []float32) {
	t.Helper()
	size := q.w.Size()
	want64, want32 := make([]byte, len(s64)*size), make([]byte, len(s32)*size)
	n64, n32 := encodePortable(q, want64, s64), encodePortable(q, want32, s32)
	got := make([]byte, max(len(want64), len(want32)))
	for _, k := range kernels() {
		if n := q.encodeFloat64With(k, got, s64); n != n64 || !bytes.Equal(got[:len(want64)], want64) {
			t.Fatalf("%v [%v,%v] EncodeFloat64 (%v) differs from portable: nans %d/%d\n in %v\ngot  %x\nwant %x",
				q.w, q.min, q.max, k, n, n64, s64, got[:len(want64)], want64)
		}
		if n := q.encodeFloat32With(k, got, s32); n != n32 || !bytes.Equal(got[:len(want32)], want32) {
			t.Fatalf("%v [%v,%v] EncodeFloat32 (%v, f32 %v) differs from portable: nans %d/%d\n in %v\ngot  %x\nwant %x",
				q.w, q.min, q.max, k, q.f32, n, n32, s32, got[:len(want32)], want32)
		}
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
	q.decodeFloat32(got32, b)
	decode(q, want32, b)
	for i := range n {
		if math.Float64bits(got64[i]) != math.Float64bits(want64[i]) || math.Float32bits(got32[i]) != math.Float32bits(want32[i]) {
			t.Fatalf("%v [%v,%v] decode (%v) of element %d: %v/%v, portable %v/%v",
				q.w, q.min, q.max, selected, i, got64[i], got32[i], want64[i], want32[i])
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
	t.Logf("kernel selected: %v; compared: %v", selected, kernels())
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
			for c := q.minCode(); c < q.maxCode(); c += 1 + (q.maxCode()-q.minCode())/97 {
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

// TestNaNEveryPosition puts one or two NaNs at every position of slices
// of 16 to 70 samples, so that some fall in the lanes where the last vector
// overlaps the previous one, and requires every kernel's count and codes.
func TestNaNEveryPosition(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, w := range wireTypes {
		q := mustNew(t, w, -1, 1)
		for n := 16; n <= 70; n++ {
			s64, s32 := make([]float64, n), make([]float32, n)
			for p := range n {
				for i := range n {
					s64[i] = 2.2*rng.Float64() - 1.1
				}
				s64[p] = math.NaN()
				if p%3 == 0 {
					s64[n-1-p/3] = -math.NaN()
				}
				for i, v := range s64 {
					s32[i] = float32(v)
				}
				diffKernels(t, &q, s64, s32)
			}
		}
	}
}

// TestNaNOnTies is TestNaNEveryPosition with samples on ties between two
// codes, which the float32 loops redo and, after a few vectors, widen: the
// codes and counts must not depend on where that happens.
func TestNaNOnTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, w := range wireTypes {
		q := mustNew(t, w, -1, 1)
		for _, n := range []int{16, 17, 63, 64, 65, 100, 130, 200} {
			s64, s32 := make([]float64, n), make([]float32, n)
			for p := 0; p < n; p += 1 + n/20 {
				for i := range n {
					c := q.minCode() + rng.Int32N(q.maxCode()-q.minCode())
					s64[i] = (q.Value(c) + q.Value(c+1)) / 2
					if i%7 == 3 { // some vectors without ties
						s64[i] = 0.3
					}
				}
				s64[p] = math.NaN()
				s64[n-1-p/2] = math.NaN()
				for i, v := range s64 {
					s32[i] = float32(v)
				}
				diffKernels(t, &q, s64, s32)
			}
		}
	}
}

// TestSelectedKernelHook runs the public encoders with each kernel made
// the selected one, as on a CPU whose best it is.
func TestSelectedKernelHook(t *testing.T) {
	_, s32 := benchInput()
	s64 := make([]float64, len(s32))
	for i, v := range s32 {
		s64[i] = float64(v)
	}
	for _, w := range wireTypes {
		q := mustNew(t, w, -1, 1)
		want64, want32 := make([]byte, len(s64)*w.Size()), make([]byte, len(s32)*w.Size())
		encodePortable(&q, want64, s64)
		encodePortable(&q, want32, s32)
		for _, k := range kernels() {
			t.Run(k.String()+"/"+w.String(), func(t *testing.T) {
				useKernel(t, k)
				if selected != k || selected == kernelPortable {
					t.Fatalf("selected %v, want %v", selected, k)
				}
				got := make([]byte, len(want64))
				q.EncodeFloat64(got, s64)
				if !bytes.Equal(got, want64) {
					t.Error("EncodeFloat64 differs from portable")
				}
				q.EncodeFloat32(got, s32)
				if !bytes.Equal(got, want32) {
					t.Error("EncodeFloat32 differs from portable")
				}
			})
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
