package client

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
)

// Update is one DATA update accepted by the sequence gate, filled in place by
// Client.Next. It owns a copy of the payload and one decode buffer per signal
// and per kind (values, times); all are reused by the next Next, so reusing one
// Update makes the receive path allocation-free once every buffer has been
// touched. Slices returned by its methods are valid until the next Next into
// the same Update. An Update is not safe for concurrent use.
type Update struct {
	Counter      uint32 // DATA counter of the session
	HRT          uint64 // hrtTimestamp: ns of the server's CLOCK_MONOTONIC_RAW at Synchronise()
	Lost         uint32 // updates missing between the previous accepted update and this one
	SessionStart bool   // first update after a CONFIG: counters and Lost restart here
	payloadBytes []byte // the whole DATA payload: HRT then every signal's wire bytes

	// Skipped is the number of the server's cycles missing between the
	// previous accepted update and this one beyond the Lost ones: cycles
	// the server replaced before sending them or its RT thread missed, seen
	// from the hrtTimestamp spacing (docs/udpstreamer.md, "The Go client").
	// 0 while the period is being learnt: the first 17 updates of a
	// session, after a Resync, and while spacings that disagree with the
	// period have it learnt again (in the first second or so).
	Skipped uint32
	// Silence is, on the first update after a silence Next reported, the
	// time since the previous update (or since the session started); 0
	// otherwise. A quiet signal keeps its updates coming; a gap in the
	// stream shows here.
	Silence time.Duration
	// Resync is true when the counter restarted without a CONFIG (two
	// updates in a row implausibly far from the sequence; see
	// docs/udpstreamer.md, "Sequence counters") and the client follows the new sequence from this
	// update. Lost then counts the new sequence's updates not delivered.
	Resync bool

	cfg    *Config
	skips  cycleClock  // Decode's: the server's period, for Skipped
	gen    uint64      // incremented per fill; a buffer is current when its gen matches
	vals   [][]float64 // per signal, Float64s
	valGen []uint64
	times  [][]float64 // per signal, Times
	tGen   []uint64
}

// Config returns the Config the update was decoded with, nil before the first
// update.
func (u *Update) Config() *Config { return u.cfg }

// fill takes a reassembled payload of cfg's session. It allocates only when the
// Config differs from the previous fill's or the payload buffer is short.
func (u *Update) fill(cfg *Config, counter, lost uint32, payload []byte) error {
	if len(payload) != cfg.payloadSize {
		return frame.ErrDataLength
	}
	if u.cfg != cfg {
		n := len(cfg.Signals)
		u.cfg = cfg
		u.vals, u.valGen = make([][]float64, n), make([]uint64, n)
		u.times, u.tGen = make([][]float64, n), make([]uint64, n)
	}
	u.payloadBytes = append(u.payloadBytes[:0], payload...)
	u.HRT = binary.LittleEndian.Uint64(u.payloadBytes)
	u.Counter, u.Lost = counter, lost
	u.gen++
	return nil
}

// Raw returns the wire bytes of signal i (little-endian elements of
// Config().WireType(i)). It aliases Payload. It returns nil before the
// first update and panics if i is out of range.
func (u *Update) Raw(i int) []byte {
	if u.cfg == nil {
		return nil
	}
	s := u.cfg.slots[i]
	return u.payloadBytes[s.Offset : s.Offset+s.Len : s.Offset+s.Len]
}

// Float64s returns the values of signal i as float64: dequantised for a
// quantised signal (by the protocol's formula, through package quant),
// converted otherwise (exact for every type but 64-bit integers beyond 2^53).
// Elements are in wire order, columns fastest for a matrix. The slice belongs to
// the Update; the signal is decoded at most once per update. It returns nil
// before the first update and panics if i is out of range.
func (u *Update) Float64s(i int) []float64 {
	if u.cfg == nil {
		return nil
	}
	dst := u.vals[i]
	if u.valGen[i] == u.gen {
		return dst
	}
	sl := u.cfg.slots[i]
	if dst == nil {
		dst = make([]float64, sl.Elements)
		u.vals[i] = dst
	}
	src := u.payloadBytes[sl.Offset : sl.Offset+sl.Len]
	if p := &u.cfg.plans[i]; p.quantised {
		p.q.DecodeFloat64(dst, src)
	} else {
		appendElems(dst[:0], src, sl.WireType)
	}
	u.valGen[i] = u.gen
	return dst
}

// Float64At returns element k of signal i as Float64s(i)[k] would, without
// decoding the rest of the signal: for reading a few elements of a long
// array. It panics if i or k is out of range or before the first update.
func (u *Update) Float64At(i, k int) float64 {
	sl := u.cfg.slots[i]
	if k < 0 || k >= sl.Elements {
		panic("udpstreamer/client: element index out of range")
	}
	size := sl.Len / sl.Elements
	src := u.payloadBytes[sl.Offset+k*size : sl.Offset+(k+1)*size]
	if p := &u.cfg.plans[i]; p.quantised {
		var code [1]int32
		return p.q.Value(appendElems(code[:0], src, sl.WireType)[0])
	}
	var one [1]float64
	return appendElems(one[:0], src, sl.WireType)[0]
}

// TimeAt returns the time of element k of signal i, in seconds, as
// Times(i)[k] would, without computing the others. It panics if i or k is
// out of range or before the first update.
func (u *Update) TimeAt(i, k int) float64 {
	s := &u.cfg.recs[i]
	if k < 0 || k >= u.cfg.slots[i].Elements {
		panic("udpstreamer/client: element index out of range")
	}
	perSecond := u.cfg.plans[i].timePerSecond
	switch s.TimeMode {
	case datasource.FullArray:
		return u.Float64At(int(s.TimeSignalIdx), k) / perSecond
	case datasource.FirstSample:
		return u.Float64At(int(s.TimeSignalIdx), 0)/perSecond + float64(k)/s.SamplingRate
	case datasource.LastSample:
		last := u.cfg.slots[i].Elements - 1
		return u.Float64At(int(s.TimeSignalIdx), 0)/perSecond - float64(last-k)/s.SamplingRate
	}
	return float64(u.HRT) / 1e9
}

// number is the set of element types appendValues converts to.
type number interface {
	~uint8 | ~int8 | ~uint16 | ~int16 | ~uint32 | ~int32 | ~uint64 | ~int64 |
		~float32 | ~float64 | ~int | ~uint
}

// appendValues appends the wire elements of signal i to dst, each converted to T
// as the Go conversion T(x) from its wire type (Config.WireType) would: exact
// when T is the wire type, and the raw codes, not physical values, for a
// quantised signal (use Float64s for those). It allocates only when dst lacks
// capacity; it panics if i is out of range or before the first update.
func appendValues[T number](dst []T, u *Update, i int) []T {
	sl := u.cfg.slots[i]
	return appendElems(dst, u.payloadBytes[sl.Offset:sl.Offset+sl.Len], sl.WireType)
}

// appendElems appends the little-endian elements of type t in src to dst,
// each converted to T.
func appendElems[T number](dst []T, src []byte, t datasource.Type) []T {
	le := binary.LittleEndian
	switch t {
	case datasource.Uint8:
		for _, b := range src {
			dst = append(dst, T(b))
		}
	case datasource.Int8:
		for _, b := range src {
			dst = append(dst, T(int8(b)))
		}
	case datasource.Uint16:
		for ; len(src) >= 2; src = src[2:] {
			dst = append(dst, T(le.Uint16(src)))
		}
	case datasource.Int16:
		for ; len(src) >= 2; src = src[2:] {
			dst = append(dst, T(int16(le.Uint16(src))))
		}
	case datasource.Uint32:
		for ; len(src) >= 4; src = src[4:] {
			dst = append(dst, T(le.Uint32(src)))
		}
	case datasource.Int32:
		for ; len(src) >= 4; src = src[4:] {
			dst = append(dst, T(int32(le.Uint32(src))))
		}
	case datasource.Uint64:
		for ; len(src) >= 8; src = src[8:] {
			dst = append(dst, T(le.Uint64(src)))
		}
	case datasource.Int64:
		for ; len(src) >= 8; src = src[8:] {
			dst = append(dst, T(int64(le.Uint64(src))))
		}
	case datasource.Float32:
		for ; len(src) >= 4; src = src[4:] {
			dst = append(dst, T(math.Float32frombits(le.Uint32(src))))
		}
	case datasource.Float64:
		for ; len(src) >= 8; src = src[8:] {
			dst = append(dst, T(math.Float64frombits(le.Uint64(src))))
		}
	}
	return dst
}

// Times returns the time of every element of signal i, in seconds, by the
// signal's time mode:
//
//   - PacketTime: HRT/1e9 for every element (the server's monotonic clock).
//   - FullArray: element k of the time signal, divided by the time signal's
//     UnitsPerSecond (its values as Float64s gives them, dequantised if need be).
//   - FirstSample: t0 + k/SamplingRate, t0 the scalar time signal in seconds.
//   - LastSample: tN - (N-1-k)/SamplingRate, tN the scalar time signal in seconds.
//
// The time signal's unit is read from its CONFIG Unit: "s", "ms", "us"/"µs",
// "ns"; any other unit, or none, is taken as seconds (see unitsPerSecond).
// k is the element index in wire order (columns fastest for a matrix). The
// slice belongs to the Update; it returns nil before the first update and
// panics if i is out of range.
func (u *Update) Times(i int) []float64 {
	if u.cfg == nil {
		return nil
	}
	dst := u.times[i]
	if u.tGen[i] == u.gen {
		return dst
	}
	s := &u.cfg.recs[i]
	if dst == nil {
		dst = make([]float64, s.Elements())
		u.times[i] = dst
	}
	perSecond := u.cfg.plans[i].timePerSecond
	switch s.TimeMode {
	case datasource.FullArray:
		ts := u.Float64s(int(s.TimeSignalIdx))
		for k := range dst {
			dst[k] = ts[k] / perSecond
		}
	case datasource.FirstSample:
		t0, rate := u.Float64s(int(s.TimeSignalIdx))[0]/perSecond, s.SamplingRate
		for k := range dst {
			dst[k] = t0 + float64(k)/rate
		}
	case datasource.LastSample:
		tn, rate, last := u.Float64s(int(s.TimeSignalIdx))[0]/perSecond, s.SamplingRate, len(dst)-1
		for k := range dst {
			dst[k] = tn - float64(last-k)/rate
		}
	default: // PacketTime
		t := float64(u.HRT) / 1e9
		for k := range dst {
			dst[k] = t
		}
	}
	u.tGen[i] = u.gen
	return dst
}
