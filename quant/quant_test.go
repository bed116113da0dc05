package quant

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

var wireTypes = []WireType{Uint8, Int8, Uint16, Int16}

// ranges used by the table tests: ordinary, offset, tiny, huge, asymmetric.
var testRanges = [][2]float64{
	{0, 1}, {-10, 10}, {0, 1e6}, {-1, 0}, {1e6, 1e6 + 1}, {-1e-300, 1e-300},
	{-1e300, 1e300}, {3.25, 7.5}, {-273.15, 1e4},
}

func mustNew(tb testing.TB, w WireType, lo, hi float64) Quantizer {
	tb.Helper()
	q, err := New(w, lo, hi)
	if err != nil {
		tb.Fatalf("New(%v, %v, %v): %v", w, lo, hi, err)
	}
	return q
}

func TestWireType(t *testing.T) {
	sizes := map[WireType]int{None: 0, Uint8: 1, Int8: 1, Uint16: 2, Int16: 2, 5: 0}
	for w, n := range sizes {
		if w.Size() != n {
			t.Errorf("%v.Size() = %d, want %d", w, w.Size(), n)
		}
	}
	for i, name := range []string{"none", "uint8", "int8", "uint16", "int16"} {
		if w := WireType(i); w.String() != name || !w.Valid() {
			t.Errorf("code %d: %q, valid %v; want %s", i, w, w.Valid(), name)
		}
	}
	if WireType(5).Valid() {
		t.Error("code 5 valid")
	}
	if s := WireType(9).String(); s != "WireType(9)" {
		t.Errorf("WireType(9).String() = %q", s)
	}
}

func TestMisuseNew(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	bad := []struct {
		w      WireType
		lo, hi float64
		want   error
	}{
		{None, 0, 1, errWireType},
		{WireType(7), 0, 1, errWireType},
		{Uint8, 1, 0, errRange}, // reversed
		{Uint8, 1, 1, errRange}, // equal
		{Int16, 0, 0, errRange}, // equal zero
		{Uint16, nan, 1, errRange},
		{Uint16, 0, nan, errRange},
		{Int8, -inf, 0, errRange},
		{Int8, 0, inf, errRange},
		{Int8, -inf, inf, errRange},
		{Uint16, -math.MaxFloat64, math.MaxFloat64, errRange}, // span overflows
		{Uint16, 0, 5e-324, errRange},                         // scale overflows
	}
	for _, c := range bad {
		if _, err := New(c.w, c.lo, c.hi); !errors.Is(err, c.want) {
			t.Errorf("New(%v, %v, %v) = %v, want %v", c.w, c.lo, c.hi, err, c.want)
		}
	}
}

func TestCodes(t *testing.T) {
	want := map[WireType][2]int32{Uint8: {0, 255}, Int8: {-127, 127}, Uint16: {0, 65535}, Int16: {-32767, 32767}}
	for _, w := range wireTypes {
		q := mustNew(t, w, -2, 6)
		if q.WireType() != w {
			t.Errorf("WireType() = %v, want %v", q.WireType(), w)
		}
		lo, hi := q.minCode(), q.maxCode()
		if [2]int32{lo, hi} != want[w] {
			t.Errorf("%v codes [%d, %d], want %v", w, lo, hi, want[w])
		}
		if got := q.Step(); got != 8/float64(hi-lo) {
			t.Errorf("%v Step() = %v", w, got)
		}
		if a, b := q.min, q.max; a != -2 || b != 6 {
			t.Errorf("range %v, %v", a, b)
		}
		for _, c := range []struct {
			v    float64
			code int32
		}{
			{-2, lo}, {6, hi}, {-2.0000001, lo}, {6.0000001, hi}, {-1e300, lo}, {1e300, hi},
			{math.Inf(-1), lo}, {math.Inf(1), hi}, {math.NaN(), lo}, {2, (lo + hi + 1) / 2},
		} {
			if w == Int8 || w == Int16 {
				if c.v == 2 {
					c.code = 0
				}
			}
			if got := q.Code(c.v); got != c.code {
				t.Errorf("%v Code(%v) = %d, want %d", w, c.v, got, c.code)
			}
		}
		if q.Value(lo) != -2 || q.Value(hi) != 6 {
			t.Errorf("%v Value(ends) = %v, %v", w, q.Value(lo), q.Value(hi))
		}
	}
}

// encodeBoth runs both kernels on v and checks they agree with Code.
func encodeBoth(tb testing.TB, q *Quantizer, v float64) int32 {
	tb.Helper()
	var b64, b32 [2]byte
	n64 := q.EncodeFloat64(b64[:], []float64{v})
	n32 := q.EncodeFloat32(b32[:], []float32{float32(v)})
	want := q.Code(v)
	if got := decodeCode(q.w, b64[:]); got != want {
		tb.Fatalf("%v [%v,%v] EncodeFloat64(%v) = %d, Code = %d", q.w, q.min, q.max, v, got, want)
	}
	if got, want32 := decodeCode(q.w, b32[:]), q.Code(float64(float32(v))); got != want32 {
		tb.Fatalf("%v [%v,%v] EncodeFloat32(%v) = %d, Code = %d", q.w, q.min, q.max, float32(v), got, want32)
	}
	isNaN := 0
	if v != v {
		isNaN = 1
	}
	if n64 != isNaN || n32 != isNaN {
		tb.Fatalf("NaN counts %d, %d for %v", n64, n32, v)
	}
	return want
}

// decodeCode reads one little-endian code.
func decodeCode(w WireType, b []byte) int32 {
	switch w {
	case Uint8:
		return int32(b[0])
	case Int8:
		return int32(int8(b[0]))
	case Uint16:
		return int32(uint16(b[0]) | uint16(b[1])<<8)
	default:
		return int32(int16(uint16(b[0]) | uint16(b[1])<<8))
	}
}

func TestEveryCodeRoundTrips(t *testing.T) {
	for _, w := range wireTypes {
		for _, r := range testRanges {
			q := mustNew(t, w, r[0], r[1])
			n := int(q.maxCode()-q.minCode()) + 1
			codes := make([]byte, n*w.Size())
			vals := make([]float64, n)
			for i := range n {
				c := q.minCode() + int32(i)
				vals[i] = q.Value(c)
				if got := q.Code(vals[i]); got != c {
					t.Fatalf("%v %v: Code(Value(%d)=%v) = %d", w, r, c, vals[i], got)
				}
			}
			if nans := q.EncodeFloat64(codes, vals); nans != 0 {
				t.Fatalf("nans = %d", nans)
			}
			dec := make([]float64, n)
			dec32 := make([]float32, n)
			q.DecodeFloat64(dec, codes)
			q.decodeFloat32(dec32, codes)
			for i := range n {
				c := q.minCode() + int32(i)
				if got := decodeCode(w, codes[i*w.Size():]); got != c {
					t.Fatalf("%v %v: EncodeFloat64 code %d, want %d", w, r, got, c)
				}
				if dec[i] != vals[i] || dec32[i] != float32(vals[i]) {
					t.Fatalf("%v %v: decode code %d = %v/%v, want %v", w, r, c, dec[i], dec32[i], vals[i])
				}
			}
		}
	}
}

// halfStepSlack is the float64 rounding allowance on top of half a step:
// a few ulps of the range ends for the final add and of the step for t.
func halfStepSlack(q *Quantizer, v float64) float64 {
	return 8*0x1p-52*(math.Abs(q.min)+math.Abs(q.max)+math.Abs(v)) + q.Step()*1e-9
}

func checkHalfStep(tb testing.TB, q *Quantizer, v float64) {
	tb.Helper()
	c := encodeBoth(tb, q, v)
	if !(v >= q.min && v <= q.max) {
		return
	}
	if err := math.Abs(q.Value(c) - v); err > q.Step()/2+halfStepSlack(q, v) {
		tb.Fatalf("%v [%v,%v]: v=%v code %d decodes to %v: error %v > half step %v",
			q.w, q.min, q.max, v, c, q.Value(c), err, q.Step()/2)
	}
}

func TestHalfStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, w := range wireTypes {
		for _, r := range testRanges {
			q := mustNew(t, w, r[0], r[1])
			for range 20000 {
				checkHalfStep(t, &q, r[0]+rng.Float64()*(r[1]-r[0]))
			}
			// Exact midpoints between codes and their neighbours.
			for c := q.minCode(); c < q.maxCode(); c += 1 + (q.maxCode()-q.minCode())/300 {
				mid := (q.Value(c) + q.Value(c+1)) / 2
				checkHalfStep(t, &q, mid)
				checkHalfStep(t, &q, math.Nextafter(mid, math.Inf(1)))
				checkHalfStep(t, &q, math.Nextafter(mid, math.Inf(-1)))
			}
		}
	}
}

func TestTiesToEven(t *testing.T) {
	q := mustNew(t, Uint8, 0, 255) // one step per unit: t == v
	for _, c := range []struct {
		v    float64
		code int32
	}{{0.5, 0}, {1.5, 2}, {2.5, 2}, {253.5, 254}, {254.5, 254}, {0.49999999999999994, 0}, {0.5000000000000001, 1}} {
		if got := encodeBoth(t, &q, c.v); got != c.code {
			t.Errorf("Code(%v) = %d, want %d", c.v, got, c.code)
		}
	}
	// Ties go to the even code (not the even index above the lowest code),
	// which is symmetric about zero.
	q = mustNew(t, Int8, -127, 127) // t == v+127
	for _, c := range []struct {
		v    float64
		code int32
	}{{-126.5, -126}, {-0.5, 0}, {0.5, 0}, {1.5, 2}, {-1.5, -2}, {126.5, 126}, {125.5, 126}} {
		if got := encodeBoth(t, &q, c.v); got != c.code {
			t.Errorf("Code(%v) = %d, want %d", c.v, got, c.code)
		}
	}
}

func TestSpecialValues(t *testing.T) {
	special := []float64{
		math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1),
		5e-324, -5e-324, 2.2250738585072014e-308 / 3, -1e-310, // denormals
		math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat32, math.MaxFloat32,
		float64(math.Float32frombits(1)), -float64(math.Float32frombits(0x7fffff)),
	}
	for _, w := range wireTypes {
		for _, r := range testRanges {
			q := mustNew(t, w, r[0], r[1])
			for _, v := range special {
				checkHalfStep(t, &q, v)
			}
		}
		q := mustNew(t, w, 0, 1)
		if c := q.Code(5e-324); c != q.minCode() {
			t.Errorf("%v Code(denormal) = %d", w, c)
		}
		if c := q.Code(-5e-324); c != q.minCode() {
			t.Errorf("%v Code(-denormal) = %d", w, c)
		}
	}
}

func TestNaNCount(t *testing.T) {
	nan := math.NaN()
	src := []float64{1, nan, 2, nan, math.Inf(1), nan, math.Float64frombits(0x7ff0000000000001), -nan}
	src32 := make([]float32, len(src))
	for i, v := range src {
		src32[i] = float32(v)
	}
	for _, w := range wireTypes {
		q := mustNew(t, w, -1, 1)
		dst := make([]byte, len(src)*w.Size())
		if n := q.EncodeFloat64(dst, src); n != 5 {
			t.Errorf("%v EncodeFloat64 nans = %d, want 5", w, n)
		}
		if got := decodeCode(w, dst[w.Size():]); got != q.minCode() {
			t.Errorf("%v NaN code %d, want %d", w, got, q.minCode())
		}
		if n := q.EncodeFloat32(dst, src32); n != 5 {
			t.Errorf("%v EncodeFloat32 nans = %d, want 5", w, n)
		}
	}
}

func TestNeverMostNegative(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	src := make([]float64, 4096)
	for i := range src {
		src[i] = math.Float64frombits(rng.Uint64()) // anything, incl. NaN and Inf
	}
	src[0], src[1] = math.Inf(-1), -1e300
	for _, w := range []WireType{Int8, Int16} {
		q := mustNew(t, w, -1, 1)
		dst := make([]byte, len(src)*w.Size())
		q.EncodeFloat64(dst, src)
		for i := range src {
			if c := decodeCode(w, dst[i*w.Size():]); c < q.minCode() || c > q.maxCode() {
				t.Fatalf("%v code %d for %v", w, c, src[i])
			}
		}
	}
}

func TestKernelLengths(t *testing.T) {
	for _, k := range []kernel{kernelPortable, kernelAVX2, kernelAVX512} {
		if !k.supported() {
			continue
		}
		useKernel(t, k)
		q := mustNew(t, Int16, -1, 1)
		q.EncodeFloat64(nil, nil)
		q.DecodeFloat64(nil, nil)
		big := make([]byte, 100) // longer dst is fine; bytes beyond are untouched
		q.EncodeFloat32(big, []float32{1})
		if big[2] != 0 {
			t.Errorf("%v: EncodeFloat32 wrote past its elements", k)
		}
		big = make([]byte, 100)
		q.EncodeFloat32(big, make([]float32, 17))
		if big[34] != 0 {
			t.Errorf("%v: EncodeFloat32 of 17 wrote past its elements", k)
		}
		mustPanic(t, "short dst", func() { q.EncodeFloat64(make([]byte, 3), make([]float64, 2)) })
		mustPanic(t, "short src", func() { q.DecodeFloat64(make([]float64, 2), make([]byte, 3)) })
		mustPanic(t, "short dst, long src", func() { q.EncodeFloat32(make([]byte, 63), make([]float32, 32)) })
		mustPanic(t, "short dst, long float64 src", func() { q.EncodeFloat64(make([]byte, 63), make([]float64, 32)) })
		// A zero Quantizer (New's error ignored) writes nothing, even
		// without room for it.
		var zero Quantizer
		dst := make([]byte, 64)
		if n := zero.EncodeFloat64(dst, slices.Repeat([]float64{math.NaN()}, 32)); n != 0 || slices.ContainsFunc(dst, func(b byte) bool { return b != 0 }) {
			t.Errorf("%v: zero Quantizer: %d NaNs, wrote %v", k, n, dst)
		}
		if n := zero.EncodeFloat32(nil, make([]float32, 32)); n != 0 {
			t.Errorf("%v: zero Quantizer, float32: %d", k, n)
		}
	}
	mustPanic(t, "unsupported kernel", func() {
		q := mustNew(t, Int16, -1, 1)
		q.encodeFloat32With(kernel(9), make([]byte, 64), make([]float32, 32))
	})
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", name)
		}
	}()
	f()
}

var sinkNaNs int

func TestKernelsNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	src64 := make([]float64, 1000)
	src32 := make([]float32, 1000)
	out64 := make([]float64, 1000)
	out32 := make([]float32, 1000)
	dst := make([]byte, 2000)
	for _, k := range []kernel{kernelPortable, kernelAVX2, kernelAVX512} {
		if !k.supported() {
			continue
		}
		useKernel(t, k)
		for _, w := range wireTypes {
			q := mustNew(t, w, -1, 1)
			for name, f := range map[string]func(){
				"EncodeFloat64": func() { sinkNaNs += q.EncodeFloat64(dst, src64) },
				"EncodeFloat32": func() { sinkNaNs += q.EncodeFloat32(dst, src32) },
				"DecodeFloat64": func() { q.DecodeFloat64(out64, dst) },
				"DecodeFloat32": func() { q.decodeFloat32(out32, dst) },
				"Code":          func() { sinkNaNs += int(q.Code(0.5)) },
			} {
				if n := testing.AllocsPerRun(100, f); n != 0 {
					t.Errorf("%v %v %s: %v allocs", k, w, name, n)
				}
			}
		}
	}
}

func FuzzHalfStep(f *testing.F) {
	for i, w := range wireTypes {
		for _, r := range testRanges {
			f.Add(uint8(w), r[0], r[1], r[0]+(r[1]-r[0])*float64(i)/7)
		}
	}
	f.Add(uint8(Uint8), 0.0, 255.0, 2.5)
	f.Add(uint8(Int16), -1.0, 1.0, math.NaN())
	f.Add(uint8(Int8), -1.0, 1.0, math.Inf(-1))
	f.Fuzz(func(t *testing.T, w uint8, lo, hi, v float64) {
		q, err := New(WireType(w), lo, hi)
		if err != nil {
			return
		}
		checkHalfStep(t, &q, v)
		c := q.Code(v)
		if c < q.minCode() || c > q.maxCode() {
			t.Fatalf("code %d out of range", c)
		}
	})
}

// FuzzDecode checks the decode kernels against Value on arbitrary codes, and
// that re-encoding a decoded in-range code gives it back.
func FuzzDecode(f *testing.F) {
	for _, w := range wireTypes {
		q := mustNew(f, w, -3, 5)
		src := []float64{-3, 5, 0, 1.25, math.NaN(), math.Inf(1), -4}
		b := make([]byte, len(src)*w.Size())
		q.EncodeFloat64(b, src)
		f.Add(uint8(w), -3.0, 5.0, b)
	}
	f.Fuzz(func(t *testing.T, w uint8, lo, hi float64, b []byte) {
		q, err := New(WireType(w), lo, hi)
		if err != nil {
			return
		}
		sz := q.w.Size()
		n := len(b) / sz
		dst := make([]float64, n)
		dst32 := make([]float32, n)
		q.DecodeFloat64(dst, b)
		q.decodeFloat32(dst32, b)
		for i := range n {
			c := decodeCode(q.w, b[i*sz:])
			if v := q.Value(c); dst[i] != v && !(v != v && dst[i] != dst[i]) {
				t.Fatalf("DecodeFloat64[%d] = %v, Value(%d) = %v", i, dst[i], c, v)
			}
			if dst32[i] != float32(dst[i]) {
				t.Fatalf("DecodeFloat32[%d] = %v, want %v", i, dst32[i], float32(dst[i]))
			}
		}
		re := make([]byte, n*sz)
		q.EncodeFloat64(re, dst)
		for i := range n {
			c := decodeCode(q.w, b[i*sz:])
			if c < q.minCode() { // -128 / -32768 are never emitted; they clamp
				c = q.minCode()
			}
			// Only where float64 near the range resolves far finer than a step.
			if got := decodeCode(q.w, re[i*sz:]); got != c && math.Abs(q.min) < q.span*1e6 {
				t.Fatalf("code %d decodes to %v and re-encodes to %d", c, dst[i], got)
			}
		}
	})
}
