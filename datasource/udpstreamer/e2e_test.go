package udpstreamer

import (
	"context"
	"encoding/binary"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/streamerd/streamerd/broker"
	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/internal/memory"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/quant"
	"github.com/streamerd/streamerd/rt"
	"github.com/streamerd/streamerd/rt/cpu"
)

// e2eSignals covers every type, every quantisation, every time mode and a
// 2-D signal. Signal 0 is the cycle Counter from which every other value is
// derived, so the client can recompute what was written.
func e2eSignals() []datasource.Signal {
	arr := func(name string, t datasource.Type, n int) datasource.Signal {
		return datasource.Signal{Name: name, Type: t, NumberOfDimensions: 1, NumberOfElements: n}
	}
	q := func(s datasource.Signal, w quant.WireType, lo, hi float64) datasource.Signal {
		s.QuantizedType, s.RangeMin, s.RangeMax = w, lo, hi
		return s
	}
	burst := arr("Burst", datasource.Float32, 64)
	burst.TimeMode, burst.TimeSignal, burst.SamplingRate = datasource.FirstSample, "T0", 1e6
	tail := arr("Tail", datasource.Float64, 16)
	tail.TimeMode, tail.TimeSignal, tail.SamplingRate = datasource.LastSample, "T0", 1e5
	times := arr("Times", datasource.Uint64, 32)
	times.Unit = "ns"
	full := arr("Full", datasource.Float32, 32)
	full.TimeMode, full.TimeSignal = datasource.FullArray, "Times"
	return []datasource.Signal{
		{Name: "Counter", Type: datasource.Uint32},
		arr("U8", datasource.Uint8, 4),
		{Name: "I8", Type: datasource.Int8},
		arr("U16", datasource.Uint16, 3),
		{Name: "I16", Type: datasource.Int16},
		arr("I32", datasource.Int32, 2),
		{Name: "U64", Type: datasource.Uint64},
		arr("I64", datasource.Int64, 2),
		arr("F32", datasource.Float32, 5),
		{Name: "F64", Type: datasource.Float64},
		q(arr("QU8", datasource.Float32, 8), quant.Uint8, -1, 1),
		q(arr("QI8", datasource.Float64, 8), quant.Int8, -2, 2),
		q(arr("QU16", datasource.Float32, 8), quant.Uint16, 0, 100),
		q(arr("QI16", datasource.Float64, 8), quant.Int16, -1000, 1000),
		{Name: "T0", Type: datasource.Uint32, Unit: "us"},
		burst,
		tail,
		times,
		full,
		{Name: "M", Type: datasource.Float64, NumberOfDimensions: 2, Rows: 3, Cols: 4},
		arr("Pkt", datasource.Float32, 4),
	}
}

// expected returns element k of signal i in cycle c as float64, and, for
// integer types, its bits (two's complement, truncated to the type).
func expected(sig *datasource.Signal, i, k int, c uint32) (float64, uint64) {
	switch {
	case sig.Name == "Counter":
		return float64(c), uint64(c)
	case sig.Name == "T0":
		return float64(c * 200), uint64(c * 200)
	case sig.Name == "Times":
		v := uint64(c)*1_000_000 + uint64(k)*1000
		return float64(v), v
	case sig.QuantizedType != quant.None:
		frac := math.Mod(float64(c)*0.013+float64(k)*0.07, 1)
		v := sig.RangeMin + (sig.RangeMax-sig.RangeMin)*frac
		if sig.Type == datasource.Float32 {
			v = float64(float32(v))
		}
		return v, 0
	case sig.Type.IsFloat():
		v := float64(c%100000)*0.25 + float64(k)*0.5 + float64(i)
		if sig.Type == datasource.Float32 {
			v = float64(float32(v))
		}
		return v, 0
	}
	bits := uint64(c)*1000003 + uint64(i*131+k*17)
	if sz := sig.Type.Size(); sz < 8 {
		bits &= 1<<(8*sz) - 1
	}
	return 0, bits
}

// writer is the GAM: it writes every signal of cycle c into its own typed
// Go slices, which a broker copies into the datasource.
type writer struct {
	sigs    []datasource.Signal
	mem     [][]byte
	counter *uint32
}

func (w *writer) Execute() error {
	c := *w.counter
	for i := range w.sigs {
		s := &w.sigs[i]
		m := w.mem[i]
		for k := 0; k < s.Elements(); k++ {
			f, bits := expected(s, i, k, c)
			switch s.Type {
			case datasource.Float32:
				memory.View[float32](m)[k] = float32(f)
			case datasource.Float64:
				memory.View[float64](m)[k] = f
			default:
				sz := s.Type.Size()
				for b := 0; b < sz; b++ {
					m[k*sz+b] = byte(bits >> (8 * b))
				}
			}
		}
	}
	return nil
}

// runE2E runs an RT thread at hz driving a Streamer with sigs, a client
// library receiving `updates` updates, checking every value, and returns
// the process allocations counted between warm-up and the end.
func runE2E(t *testing.T, sigs []datasource.Signal, maxPayload int, hz float64, updates, warmup int) (mallocs uint64) {
	t.Helper()
	s := start(t, Config{MaxPayloadSize: maxPayload, Signals: sigs, NetworkThread: datasource.NetworkThread{CPUMask: pickCPU(0)}})
	// GAM memory: one aligned Go slice per signal.
	w := &writer{sigs: sigs}
	var outs []broker.Output
	for i := range sigs {
		m := make([]uint64, (sigs[i].ByteSize()+7)/8) // 8-byte aligned
		w.mem = append(w.mem, memory.Bytes(m)[:sigs[i].ByteSize()])
		outs = append(outs, broker.BindBytes(sigs[i].Name, sigs[i].Type, w.mem[i]))
	}
	b, err := broker.NewMemoryMapSynchronisedOutputBroker(s, outs)
	if err != nil {
		t.Fatal(err)
	}
	th, err := rt.New(rt.Config{Name: "RT", Frequency: hz, CPUMask: pickCPU(1)},
		[]rt.Step{{Name: "writer", Exec: w}}, []rt.Step{{Name: "broker", Exec: b}})
	if err != nil {
		t.Fatal(err)
	}
	w.counter = th.Counter()

	cl, err := client.Dial(s.LocalAddr().String(), client.Options{LocalAddr: "127.0.0.1:0", ReadBuffer: 16 << 20, Silence: -1}) // the read deadline below bounds each wait
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := cl.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := th.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer th.Stop()

	var u client.Update
	ints := make([]uint64, 0, 64)
	var m0, m1 runtime.MemStats
	for n := 0; n < updates; n++ {
		if n == warmup {
			runtime.ReadMemStats(&m0)
		}
		cl.SetReadDeadline(time.Now().Add(5 * time.Second))
		if err := cl.Next(&u); err != nil {
			t.Fatalf("update %d: %v", n, err)
		}
		if u.Lost != 0 {
			t.Fatalf("update %d: %d lost", n, u.Lost)
		}
		ints = rawValues(ints[:0], &u, 0)
		c := uint32(ints[0])
		for i := 1; i < len(sigs); i++ {
			sig := &sigs[i]
			if !sig.Type.IsFloat() {
				ints = rawValues(ints[:0], &u, i)
				for k, got := range ints {
					if _, want := expected(sig, i, k, c); got&maskOf(sig.Type) != want {
						t.Fatalf("cycle %d: %s[%d] = %#x, want %#x", c, sig.Name, k, got&maskOf(sig.Type), want)
					}
				}
				continue
			}
			vals := u.Float64s(i)
			tol := 0.0
			if sig.QuantizedType != quant.None {
				q, _ := quant.New(sig.QuantizedType, sig.RangeMin, sig.RangeMax)
				tol = q.Step()/2 + 1e-9*(sig.RangeMax-sig.RangeMin)
			}
			for k, got := range vals {
				want, _ := expected(sig, i, k, c)
				if math.Abs(got-want) > tol || (tol == 0 && math.Float64bits(got) != math.Float64bits(want)) {
					t.Fatalf("cycle %d: %s[%d] = %v, want %v (±%v)", c, sig.Name, k, got, want, tol)
				}
			}
		}
		checkTimes(t, &u, sigs, c)
	}
	runtime.ReadMemStats(&m1)
	st := cl.Stats()
	if st.Lost != 0 || st.Stale != 0 {
		t.Errorf("client stats: lost %d, stale %d", st.Lost, st.Stale)
	}
	t.Logf("%d updates, skipped cycles %d (latest value wins), %d fragments per update", updates, s.m.skipped.Get(), s.dataLayout.Fragments)
	return m1.Mallocs - m0.Mallocs
}

func maskOf(t datasource.Type) uint64 {
	if sz := t.Size(); sz < 8 {
		return 1<<(8*sz) - 1
	}
	return math.MaxUint64
}

// checkTimes checks the reconstructed per-sample times of the e2e signals.
func checkTimes(t *testing.T, u *client.Update, sigs []datasource.Signal, c uint32) {
	for i := range sigs {
		sig := &sigs[i]
		if sig.Elements() < 2 {
			continue
		}
		ts := u.Times(i)
		n := len(ts)
		for k, got := range ts {
			var want float64
			switch sig.TimeMode {
			case datasource.PacketTime:
				want = float64(u.HRT) / 1e9
			case datasource.FirstSample:
				want = float64(c*200)/1e6 + float64(k)/sig.SamplingRate
			case datasource.LastSample:
				want = float64(c*200)/1e6 - float64(n-1-k)/sig.SamplingRate
			case datasource.FullArray:
				want = float64(uint64(c)*1_000_000+uint64(k)*1000) / 1e9
			}
			if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Fatalf("cycle %d: time of %s[%d] = %v, want %v", c, sig.Name, k, got, want)
			}
		}
	}
}

// pickCPU returns CPU i alone when the machine has it, else no pinning.
func pickCPU(i int) cpu.Mask {
	if all, err := cpu.OnlineMask(); err == nil && all.Count() >= 2 && all.Has(i) {
		return cpu.Of(i)
	}
	return 0
}

// TestEndToEndEveryTypeQuantisationAndTimeMode: an RT thread at 2 kHz drives
// the datasource; the client library receives 10000 updates with none lost,
// raw values bit-exact, quantised ones within half a step, every time mode
// reconstructed; and with the RT thread, the network thread and the client
// running, the process does not allocate.
func TestEndToEndEveryTypeQuantisationAndTimeMode(t *testing.T) {
	updates := 10000
	if testenv.RaceEnabled {
		updates = 2000
	}
	rt.WarmThreadPool(8)
	mallocs := runE2E(t, e2eSignals(), 1400, 2000, updates, 1000)
	// Nothing of ours allocates; the Go runtime may a handful of times in
	// a whole run (a new OS thread, a P's timer heap), never per update.
	if !testenv.RaceEnabled && mallocs > 8 {
		t.Errorf("%d allocations during %d updates in steady state", mallocs, updates-1000)
	}
}

// TestEndToEndMaxPayloadSize18 sends every update as 1-byte fragments: more
// than 100 datagrams per update.
func TestEndToEndMaxPayloadSize18(t *testing.T) {
	sigs := []datasource.Signal{
		{Name: "Counter", Type: datasource.Uint32},
		{Name: "F32", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 20},
		{Name: "QI16", Type: datasource.Float64, NumberOfDimensions: 1, NumberOfElements: 10, QuantizedType: quant.Int16, RangeMin: -1000, RangeMax: 1000},
		{Name: "M", Type: datasource.Float64, NumberOfDimensions: 2, Rows: 2, Cols: 2},
	}
	runE2E(t, sigs, 18, fragmentedRate(), fragmentedUpdates(), 50)
}

// TestEndToEndHundredFragments sends a 140 KB update in 102 fragments.
func TestEndToEndHundredFragments(t *testing.T) {
	sigs := []datasource.Signal{
		{Name: "Counter", Type: datasource.Uint32},
		{Name: "Big", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 35000},
	}
	runE2E(t, sigs, 1400, fragmentedRate(), fragmentedUpdates(), 50)
}

// fragmentedRate is the update rate of the many-fragment tests: 200 Hz is
// 20 000 to 30 000 datagrams/s, more than the client reads under the race
// detector.
func fragmentedUpdates() int {
	if testenv.RaceEnabled {
		return 80
	}
	return 300
}

func fragmentedRate() float64 {
	if testenv.RaceEnabled {
		return 20
	}
	return 200
}

// rawValues appends the raw bits of every element of unquantised signal
// i of u to dst (datasource.Type.Raw, little-endian as on the wire).
func rawValues(dst []uint64, u *client.Update, i int) []uint64 {
	t := u.Config().Signals[i].Type
	b := u.Raw(i)
	for k := 0; k+t.Size() <= len(b); k += t.Size() {
		dst = append(dst, t.Raw(b[k:], binary.LittleEndian))
	}
	return dst
}
