package record

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/streamerd/streamerd/datasource"
	rdwire "github.com/streamerd/streamerd/datasource/rd100s/wire"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/quant"
)

// Row is the row being filled in a batch of rows kept column by column.
// One goroutine fills it and commits it (Recorder.Commit); nothing it does
// allocates.
type Row struct {
	l    *Layout
	cols [][]parquet.Value // per column, the batch's values; len is the batch size
	n    int               // the row being filled, in the batch
	at   time.Time         // its receive time
	raw  []uint64          // FlatUDP: the decoded elements
	sums *flagCounts
}

func newRow(l *Layout, batch int, sums *flagCounts) *Row {
	r := &Row{l: l, cols: make([][]parquet.Value, len(l.Columns)), sums: sums}
	for c := range r.cols {
		r.cols[c] = make([]parquet.Value, batch)
	}
	if l.flat != nil {
		r.raw = make([]uint64, l.flat.TotalElements())
	}
	return r
}

// set stores v in column c of the row being filled.
func (r *Row) set(c int, v parquet.Value) { r.cols[c][r.n] = v.Level(0, 0, c) }

// setRaw stores raw, an element of type t as its bits (signed integers
// sign-extended, floats as their IEEE bits), in column c.
func (r *Row) setRaw(c int, t datasource.Type, raw uint64) { r.set(c, valueOf(t, raw)) }

// valueOf is the Parquet value of an element of type t given as its bits.
func valueOf(t datasource.Type, raw uint64) parquet.Value {
	switch t {
	case datasource.Uint64, datasource.Int64:
		return parquet.Int64Value(int64(raw))
	case datasource.Float32:
		return parquet.FloatValue(math.Float32frombits(uint32(raw)))
	case datasource.Float64:
		return parquet.DoubleValue(math.Float64frombits(raw))
	}
	return parquet.Int32Value(int32(raw))
}

// rawLE returns element k of type t in the little-endian bytes b as its
// bits, as valueOf takes them.
func rawLE(t datasource.Type, b []byte, k int) uint64 {
	switch t {
	case datasource.Uint8, datasource.Char8:
		return uint64(b[k])
	case datasource.Int8:
		return uint64(int64(int8(b[k])))
	case datasource.Uint16:
		return uint64(binary.LittleEndian.Uint16(b[2*k:]))
	case datasource.Int16:
		return uint64(int64(int16(binary.LittleEndian.Uint16(b[2*k:]))))
	case datasource.Uint32, datasource.Float32:
		return uint64(binary.LittleEndian.Uint32(b[4*k:]))
	case datasource.Int32:
		return uint64(int64(int32(binary.LittleEndian.Uint32(b[4*k:]))))
	}
	return binary.LittleEndian.Uint64(b[8*k:])
}

// setMeta stores a bookkeeping column's value if the layout has it.
func (r *Row) setMeta(k kind, v uint64) {
	for c := range r.l.Columns {
		if r.l.Columns[c].kind == k {
			r.setRaw(c, r.l.Columns[c].Type, v)
			return
		}
		if r.l.Columns[c].kind >= kValue {
			return
		}
	}
}

// setTime stores the receive time.
func (r *Row) setTime(t time.Time) {
	r.at = t
	r.set(0, parquet.Int64Value(t.UnixNano()))
}

// UDPStreamer fills the row from an update of the session the layout was
// made for, received at recv; stale and incomplete are the updates the
// client dropped as stale and gave up on since the previous row.
func (r *Row) UDPStreamer(u *client.Update, recv time.Time, stale, incomplete uint32) {
	r.setTime(recv)
	r.setMeta(kCounter, uint64(u.Counter))
	r.setMeta(kHRT, u.HRT)
	r.setMeta(kLost, uint64(u.Lost))
	r.setMeta(kSkipped, uint64(u.Skipped))
	r.setMeta(kStale, uint64(stale))
	r.setMeta(kIncomplete, uint64(incomplete))
	r.sum(u.Lost, u.Skipped, stale, incomplete)
	cfg := u.Config()
	for i := range r.l.Signals {
		s := &r.l.Signals[i]
		first, wt, raw := r.l.first[i], cfg.WireType(i), u.Raw(i)
		if s.QuantizedType == quant.None {
			for k := range s.Elements() {
				r.setRaw(first+k, wt, rawLE(wt, raw, k))
			}
			continue
		}
		vals := u.Float64s(i)
		for k, v := range vals {
			if s.Type == datasource.Float32 {
				r.set(first+k, parquet.FloatValue(float32(v)))
			} else {
				r.set(first+k, parquet.DoubleValue(v))
			}
		}
		if c := r.l.codes[i]; c >= 0 {
			for k := range vals {
				r.setRaw(c+k, wt, rawLE(wt, raw, k))
			}
		}
	}
}

// sum adds a row's flags to the recorder's sums.
func (r *Row) sum(lost, skipped, stale, incomplete uint32) {
	if lost != 0 {
		r.sums.lost.Add(uint64(lost))
	}
	if skipped != 0 {
		r.sums.skipped.Add(uint64(skipped))
	}
	if stale != 0 {
		r.sums.stale.Add(uint64(stale))
	}
	if incomplete != 0 {
		r.sums.incomplete.Add(uint64(incomplete))
	}
}

// RD100S fills the row from a packet received at recv; lost is the seq
// numbers missing just before it, stale the late and duplicated packets
// dropped since the previous row.
func (r *Row) RD100S(p *rdwire.Packet, recv time.Time, lost, stale uint32) {
	r.setTime(recv)
	r.setMeta(kCounter, uint64(p.Seq))
	r.setMeta(kTUs, p.TUs)
	r.setMeta(kLost, uint64(lost))
	r.setMeta(kStale, uint64(stale))
	r.sum(lost, 0, stale, 0)
	f := r.l.first[0]
	r.set(f, parquet.Int32Value(p.AzMdeg))
	r.set(f+1, parquet.Int32Value(p.ElMdeg))
	r.set(f+2, parquet.Int32Value(p.AzRate))
	r.set(f+3, parquet.Int32Value(p.ElRate))
	r.set(f+4, parquet.Int32Value(int32(p.Status)))
}

// FlatUDP fills the row from a datagram of the layout's size received at
// recv. The datagram's size must have been checked (the FlatUDP client's
// Receiver does).
func (r *Row) FlatUDP(datagram []byte, recv time.Time) error {
	if err := r.l.flat.DecodeRaw(r.raw, datagram, r.l.order); err != nil {
		return err
	}
	r.setTime(recv)
	for c := r.l.first[0]; c < len(r.l.Columns); c++ {
		r.setRaw(c, r.l.Columns[c].Type, r.raw[c-r.l.first[0]])
	}
	return nil
}
