package client

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/internal/udpstest"
	"github.com/streamerd/streamerd/quant"
)

var allTypes = []datasource.Type{
	datasource.Uint8, datasource.Int8, datasource.Uint16, datasource.Int16,
	datasource.Uint32, datasource.Int32, datasource.Uint64, datasource.Int64,
	datasource.Float32, datasource.Float64,
}

func allTypeSigs() []datasource.Signal {
	var sigs []datasource.Signal
	for _, ty := range allTypes {
		sigs = append(sigs, vector(ty.String(), ty, 16))
	}
	return sigs
}

// randomPayload fills every signal with random bits, the first four elements
// of each with all-zero, all-one, sign-bit-only and all-but-sign bit patterns.
func randomPayload(sigs []datasource.Signal, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	p := make([]byte, frame.DataPayloadSize(frame.Records(sigs)))
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	slots, _ := frame.AppendSlots(nil, frame.Records(sigs))
	for _, sl := range slots {
		n := sl.ElemSize()
		e := func(k int) []byte { return p[sl.Offset+k*n : sl.Offset+(k+1)*n] }
		for j := range n {
			e(0)[j], e(1)[j], e(2)[j], e(3)[j] = 0, 0xFF, 0, 0xFF
		}
		e(2)[n-1], e(3)[n-1] = 0x80, 0x7F
	}
	return p
}

func sameFloat(a, b float64) bool {
	return a == b && math.Signbit(a) == math.Signbit(b) || math.IsNaN(a) && math.IsNaN(b)
}

// checkExact compares signal i of u with an independent reflection-based
// decoding of its wire bytes raw.
// checkExactOf is checkExact for each type, in type-code order.
var checkExactOf = [...]func(*testing.T, *Update, int, []byte){
	checkExact[uint8], checkExact[int8], checkExact[uint16], checkExact[int16], checkExact[uint32],
	checkExact[int32], checkExact[uint64], checkExact[int64], checkExact[float32], checkExact[float64],
}

func checkExact[E number](t *testing.T, u *Update, i int, raw []byte) {
	t.Helper()
	var z E
	ref := make([]E, len(raw)/binary.Size(z))
	if err := binary.Read(bytes.NewReader(raw), binary.LittleEndian, ref); err != nil {
		t.Fatal(err)
	}
	got := appendValues([]E(nil), u, i)
	if back, _ := binary.Append(nil, binary.LittleEndian, got); !bytes.Equal(back, raw) {
		t.Errorf("signal %d (%T): AppendValues not bit-exact:\n%v\nwant\n%v", i, z, got, ref)
	}
	f := u.Float64s(i)
	if len(f) != len(ref) {
		t.Fatalf("signal %d: %d Float64s, want %d", i, len(f), len(ref))
	}
	for k := range ref {
		if !sameFloat(f[k], float64(ref[k])) {
			t.Errorf("signal %d (%T) [%d]: Float64s %v, want %v", i, z, k, f[k], float64(ref[k]))
		}
	}
}

func TestEveryTypeBitExact(t *testing.T) {
	sigs := allTypeSigs()
	srv, c := session(t, sigs, 1400)
	p := randomPayload(sigs, 7)
	send(t, srv, 0, p)
	var u Update
	expect(t, c, &u, 0, 0)
	for i, ty := range allTypes {
		raw := u.Raw(i)
		sl := c.Config().slots[i]
		if !bytes.Equal(raw, p[sl.Offset:sl.Offset+sl.Len]) || c.Config().WireType(i) != ty {
			t.Fatalf("signal %d: Raw differs from the payload slot", i)
		}
		checkExactOf[ty](t, &u, i, raw)
	}
	// Conversions to another type follow Go's: int8 -1 as int64 is -1.
	i8 := c.Config().indexOf("int8")
	if got := appendValues([]int64(nil), &u, i8)[1]; got != -1 {
		t.Errorf("int8 0xFF as int64 = %d, want -1", got)
	}
	if got := appendValues([]int64(nil), &u, i8)[2]; got != math.MinInt8 {
		t.Errorf("int8 0x80 as int64 = %d, want -128", got)
	}
	// The caller's buffer is appended to and reused.
	buf := make([]uint64, 1, 64)
	if got := appendValues(buf, &u, c.Config().indexOf("uint64")); len(got) != 17 || &got[0] != &buf[0] {
		t.Errorf("AppendValues did not append into the caller's buffer")
	}
}

func quantSigs() []datasource.Signal {
	var sigs []datasource.Signal
	for q := quant.Uint8; q <= quant.Int16; q++ {
		for _, ty := range []datasource.Type{datasource.Float32, datasource.Float64} {
			s := vector(fmt.Sprintf("%v_%v", ty, q), ty, 64)
			s.QuantizedType, s.RangeMin, s.RangeMax, s.Unit = q, -3.5, 12.25, "V"
			sigs = append(sigs, s)
		}
	}
	return sigs
}

func TestQuantisedWithinHalfStep(t *testing.T) {
	sigs := quantSigs()
	srv, c := session(t, sigs, 1400)
	r := rand.New(rand.NewPCG(5, 6))
	in := []float64{-3.5, 12.25, 4.375, -3.6, 12.3, math.Inf(1), math.Inf(-1), math.NaN(), -1e300, 1e300}
	for len(in) < 64 {
		in = append(in, -3.5+r.Float64()*15.75)
	}
	vals := make([][]float64, len(sigs))
	for i := range vals {
		vals[i] = in
	}
	send(t, srv, 0, payload(t, sigs, 0, vals))
	var u Update
	expect(t, c, &u, 0, 0)
	for i, s := range sigs {
		q, err := quant.New(s.QuantizedType, s.RangeMin, s.RangeMax)
		if err != nil {
			t.Fatal(err)
		}
		half := q.Step()/2 + 1e-12
		got := u.Float64s(i)
		for k, v := range in {
			want := math.Max(s.RangeMin, math.Min(s.RangeMax, v))
			if math.IsNaN(v) {
				want = s.RangeMin // NaN encodes as RangeMin's code
			}
			if d := math.Abs(got[k] - want); !(d <= half) {
				t.Errorf("%s [%d]: %v decoded as %v, %v from %v (half step %v)", s.Name, k, v, got[k], d, want, half)
			}
		}
		codeRange := map[quant.WireType][2]int32{quant.Uint8: {0, 255}, quant.Int8: {-128, 127}, quant.Uint16: {0, 65535}, quant.Int16: {-32768, 32767}}
		lo, hi := codeRange[s.QuantizedType][0], codeRange[s.QuantizedType][1]
		codes := appendValues([]int32(nil), &u, i)
		for k, code := range codes {
			if code < lo || code > hi {
				t.Errorf("%s [%d]: code %d outside [%d, %d]", s.Name, k, code, lo, hi)
			}
		}
	}
}

func TestMatrix(t *testing.T) {
	m := datasource.Signal{Name: "M", Type: datasource.Int16, NumberOfDimensions: 2, Rows: 2, Cols: 3}
	f := datasource.Signal{Name: "F", Type: datasource.Float64, NumberOfDimensions: 2, Rows: 3, Cols: 2, QuantizedType: quant.Uint8, RangeMin: 0, RangeMax: 255}
	sigs := []datasource.Signal{m, f}
	srv, c := session(t, sigs, 1400)
	mv := []float64{0, -100, -200, 300, 400, -500} // row 0 then row 1
	fv := []float64{1, 2, 3, 4, 5, 255}
	send(t, srv, 0, payload(t, sigs, 0, [][]float64{mv, fv}))
	var u Update
	expect(t, c, &u, 0, 0)
	if !reflect.DeepEqual(u.Float64s(0), mv) || !reflect.DeepEqual(u.Float64s(1), fv) {
		t.Errorf("M %v F %v", u.Float64s(0), u.Float64s(1))
	}
	if got := appendValues([]int16(nil), &u, 0); !reflect.DeepEqual(got, []int16{0, -100, -200, 300, 400, -500}) {
		t.Errorf("M values %v", got)
	}
	if n := len(u.Raw(0)); n != 12 || len(u.Raw(1)) != 6 || len(u.Times(0)) != 6 {
		t.Errorf("Raw(0) %d bytes, Raw(1) %d, Times(0) %d", n, len(u.Raw(1)), len(u.Times(0)))
	}
	if cfg := c.Config(); cfg.Signals[0].Rows != 2 || cfg.Signals[0].Cols != 3 || cfg.slots[0].Elements != 6 {
		t.Errorf("matrix shape %+v", cfg.Signals[0])
	}
}

// timeSigs has every time mode, time signals in four units and a quantised one.
func timeSigs() []datasource.Signal {
	with := func(s datasource.Signal, m datasource.TimeMode, time string, rate float64) datasource.Signal {
		s.TimeMode, s.TimeSignal, s.SamplingRate = m, time, rate
		return s
	}
	ta := vector("TA", datasource.Float64, 4)
	ta.Unit = "ms"
	tq := vector("TQ", datasource.Float32, 4)
	tq.QuantizedType, tq.RangeMin, tq.RangeMax, tq.Unit = quant.Uint16, 0, 1000, "µs"
	return []datasource.Signal{
		scalar("T0", datasource.Uint32, "us"),  // 0
		scalar("Tns", datasource.Uint64, "ns"), // 1
		ta,                                     // 2
		with(vector("A", datasource.Float32, 4), datasource.FirstSample, "T0", 1e3), // 3
		with(vector("B", datasource.Int16, 4), datasource.LastSample, "Tns", 2e6),   // 4
		with(vector("C", datasource.Uint8, 4), datasource.FullArray, "TA", 0),       // 5
		vector("D", datasource.Float32, 4),                                          // 6: PacketTime
		scalar("Tx", datasource.Float32, "furlongs"),                                // 7: unknown unit: seconds
		with(vector("E", datasource.Uint8, 3), datasource.LastSample, "Tx", 10),     // 8
		tq, // 9
		with(vector("F", datasource.Int8, 4), datasource.FullArray, "TQ", 0), // 10
	}
}

func TestTimeModes(t *testing.T) {
	sigs := timeSigs()
	srv, c := session(t, sigs, 1400)
	const hrt = 5_000_000_123
	vals := make([][]float64, len(sigs))
	vals[0] = []float64{1_500_000}
	vals[1] = []float64{2_000_000_000}
	vals[2] = []float64{10, 11, 12.5, 20}
	vals[7] = []float64{3}
	vals[9] = []float64{0, 250, 500, 1000}
	send(t, srv, 0, payload(t, sigs, hrt, vals))
	var u Update
	expect(t, c, &u, 0, 0)
	want := map[string][]float64{
		"T0": {5.000000123},
		"A":  {1.5, 1.501, 1.502, 1.503},
		"B":  {2 - 3/2e6, 2 - 2/2e6, 2 - 1/2e6, 2},
		"C":  {0.010, 0.011, 0.0125, 0.020},
		"D":  {5.000000123, 5.000000123, 5.000000123, 5.000000123},
		"E":  {2.8, 2.9, 3},
	}
	// F's time signal is quantised: its times are its dequantised values in µs.
	tq := u.Float64s(9)
	want["F"] = []float64{tq[0] / 1e6, tq[1] / 1e6, tq[2] / 1e6, tq[3] / 1e6}
	for k, v := range vals[9] {
		if math.Abs(tq[k]-v) > 1000/65535.0/2 {
			t.Errorf("TQ[%d] = %v, want %v within half a step", k, tq[k], v)
		}
	}
	for name, w := range want {
		got := u.Times(c.Config().indexOf(name))
		if len(got) != len(w) {
			t.Fatalf("%s: %d times, want %d", name, len(got), len(w))
		}
		for k := range w {
			if math.Abs(got[k]-w[k]) > 1e-12*math.Max(1, math.Abs(w[k])) {
				t.Errorf("%s: times %v, want %v", name, got, w)
				break
			}
		}
	}
	// Times is cached per update and recomputed for the next one.
	a := c.Config().indexOf("A")
	first := &u.Times(a)[0]
	vals[0] = []float64{2_500_000}
	send(t, srv, 1, payload(t, sigs, hrt, vals))
	expect(t, c, &u, 1, 0)
	if got := u.Times(a); got[0] != 2.5 || &got[0] != first {
		t.Errorf("A after a new update: %v (buffer reused: %v)", got, &got[0] == first)
	}
}

func TestUnitsPerSecond(t *testing.T) {
	for unit, want := range map[string]float64{"s": 1, "ms": 1e3, "us": 1e6, "\u00b5s": 1e6, "\u03bcs": 1e6, "ns": 1e9, " ms ": 1e3} {
		if got, known := unitsPerSecond(unit); got != want || !known {
			t.Errorf("UnitsPerSecond(%q) = %v, %v", unit, got, known)
		}
	}
	for _, unit := range []string{"", "V", "min", "S"} {
		if got, known := unitsPerSecond(unit); got != 1 || known {
			t.Errorf("UnitsPerSecond(%q) = %v, %v; want 1, false", unit, got, known)
		}
	}
}

func TestBeforeFirstUpdate(t *testing.T) {
	var u Update
	if u.Float64s(0) != nil || u.Times(0) != nil || u.Config() != nil {
		t.Error("accessors of an empty Update must return nil")
	}
}

// fuzzConfigs are the plans FuzzDecode decodes arbitrary payloads against.
func fuzzConfigs(tb testing.TB) []*Config {
	var out []*Config
	for _, sigs := range [][]datasource.Signal{allTypeSigs(), quantSigs(), timeSigs(), burstSigs()} {
		out = append(out, parsedConfig(tb, sigs))
	}
	return out
}

// decodeAll runs every accessor on every signal.
func decodeAll(u *Update) {
	for i := range u.cfg.Signals {
		u.Float64s(i)
		u.Times(i)
		u.Raw(i)
		appendValues([]float64(nil), u, i)
		appendValues([]int64(nil), u, i)
		appendValues([]uint8(nil), u, i)
	}
}

// checkAt compares Float64At and TimeAt with Float64s and Times for every
// element of every signal.
func checkAt(t *testing.T, u *Update) {
	t.Helper()
	for i := range u.cfg.Signals {
		vals, times := u.Float64s(i), u.Times(i)
		for k := range vals {
			if v := u.Float64At(i, k); !sameFloat(v, vals[k]) {
				t.Fatalf("signal %d element %d: Float64At %v, Float64s %v", i, k, v, vals[k])
			}
			if v := u.TimeAt(i, k); !sameFloat(v, times[k]) {
				t.Fatalf("signal %d element %d: TimeAt %v, Times %v", i, k, v, times[k])
			}
		}
	}
}

// FuzzDecode decodes arbitrary payload bytes against fixed plans: a payload of
// the wrong size is refused, any bytes of the right size decode, and nothing
// panics.
func FuzzDecode(f *testing.F) {
	cfgs := fuzzConfigs(f)
	for i, c := range cfgs {
		p, err := udpstest.Payload(c.Signals, 1, nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), p)
		f.Add(uint8(i), randomPayload(c.Signals, uint64(i)))
	}
	f.Add(uint8(0), []byte{})
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		cfg := cfgs[int(which)%len(cfgs)]
		var u Update
		if err := u.fill(cfg, 1, 0, data); err == nil {
			decodeAll(&u)
		} else if len(data) == cfg.payloadSize {
			t.Fatalf("payload of the right size refused: %v", err)
		}
		p := make([]byte, cfg.payloadSize)
		for k := range p {
			if len(data) > 0 {
				p[k] = data[k%len(data)]
			}
		}
		if err := u.fill(cfg, 2, 0, p); err != nil {
			t.Fatal(err)
		}
		decodeAll(&u)
		checkAt(t, &u)
	})
}

// FuzzConfig plans arbitrary CONFIG payloads and decodes a payload with every
// accepted one.
func FuzzConfig(f *testing.F) {
	for _, c := range fuzzConfigs(f) {
		f.Add(c.raw)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg, err := newConfig(b)
		if err != nil || cfg.payloadSize > 1<<20 {
			return
		}
		var u Update
		if err := u.fill(cfg, 0, 0, make([]byte, cfg.payloadSize)); err != nil {
			t.Fatal(err)
		}
		decodeAll(&u)
	})
}

// TestElementAccessors: Float64At and TimeAt agree with Float64s and Times
// on every type, quantisation and time mode, and allocate nothing.
func TestElementAccessors(t *testing.T) {
	for n, cfg := range fuzzConfigs(t) {
		for seed := range uint64(20) {
			var u Update
			if err := u.fill(cfg, 0, 0, randomPayload(cfg.Signals, seed+100*uint64(n))); err != nil {
				t.Fatal(err)
			}
			checkAt(t, &u)
		}
	}
	testenv.SkipIfRace(t)
	cfg := fuzzConfigs(t)[2]
	var u Update
	u.fill(cfg, 0, 0, randomPayload(cfg.Signals, 1))
	if a := testing.AllocsPerRun(100, func() {
		for i := range cfg.Signals {
			k := cfg.slots[i].Elements - 1
			sinkFloat = u.Float64At(i, k) + u.TimeAt(i, k)
		}
	}); a != 0 {
		t.Errorf("%v allocations", a)
	}
}

var sinkFloat float64
