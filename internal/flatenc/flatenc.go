// Package flatenc writes FlatUDP datagrams from element values, for the
// tests of the receivers (test-only: no non-test file imports it; the
// FlatUDP producer sends its signal memory as it lies).
package flatenc

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp/wire"
)

// Layout returns the layout of a signals string, failing tb if it is not
// one.
func Layout(tb testing.TB, signals string) *wire.Layout {
	tb.Helper()
	l, err := wire.ParseLayout(signals)
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

// AppendRaw appends the datagram of l holding raw[:l.TotalElements()]
// (raw values as Layout.DecodeRaw gives them; each is truncated to its
// type's width) in order to b, and returns the extended slice. It is
// DecodeRaw's inverse, bit-exact. It panics if raw is shorter than
// TotalElements.
func AppendRaw(b []byte, l *wire.Layout, raw []uint64, order wire.ByteOrder) []byte {
	raw = raw[:l.TotalElements()]
	for _, s := range l.Signals {
		for _, v := range raw[:s.Count] {
			b = appendRaw(b, s.Type.Size(), v, order)
		}
		raw = raw[s.Count:]
	}
	return b
}

// AppendValues appends the datagram of l holding vals[:l.TotalElements()],
// each converted to its type as fromFloat64 does, in order to b. It
// panics if vals is shorter than TotalElements.
func AppendValues(b []byte, l *wire.Layout, vals []float64, order wire.ByteOrder) []byte {
	vals = vals[:l.TotalElements()]
	for _, s := range l.Signals {
		for _, v := range vals[:s.Count] {
			b = appendRaw(b, s.Type.Size(), fromFloat64(s.Type, v), order)
		}
		vals = vals[s.Count:]
	}
	return b
}

func appendRaw(b []byte, size int, v uint64, order wire.ByteOrder) []byte {
	var e binary.AppendByteOrder = binary.LittleEndian
	if order == wire.Big {
		e = binary.BigEndian
	}
	switch size {
	case 1:
		return append(b, byte(v))
	case 2:
		return e.AppendUint16(b, uint16(v))
	case 4:
		return e.AppendUint32(b, uint32(v))
	}
	return e.AppendUint64(b, v)
}

// fromFloat64 converts v to raw bits of type t, datasource.Type.Float64's
// inverse where v fits: integers round to nearest (halves away from zero) and saturate at
// the type's range, NaN gives 0; floats keep their bits (float32 rounds to
// nearest).
func fromFloat64(t datasource.Type, v float64) uint64 {
	switch t {
	case datasource.Float32:
		return uint64(math.Float32bits(float32(v)))
	case datasource.Float64:
		return math.Float64bits(v)
	}
	if v != v {
		return 0
	}
	v = math.Round(v)
	switch t {
	case datasource.Uint8, datasource.Char8:
		return uint64(clamp(v, 0, math.MaxUint8))
	case datasource.Uint16:
		return uint64(clamp(v, 0, math.MaxUint16))
	case datasource.Uint32:
		return uint64(clamp(v, 0, math.MaxUint32))
	case datasource.Int8:
		return uint64(int64(clamp(v, math.MinInt8, math.MaxInt8)))
	case datasource.Int16:
		return uint64(int64(clamp(v, math.MinInt16, math.MaxInt16)))
	case datasource.Int32:
		return uint64(int64(clamp(v, math.MinInt32, math.MaxInt32)))
	case datasource.Uint64:
		switch {
		case v <= 0:
			return 0
		case v >= 1<<64:
			return math.MaxUint64
		}
		return uint64(v)
	case datasource.Int64:
		switch {
		case v <= math.MinInt64:
			return 1 << 63
		case v >= 1<<63:
			return math.MaxInt64
		}
		return uint64(int64(v))
	}
	return 0
}

func clamp(v, lo, hi float64) float64 { return min(max(v, lo), hi) }
