package record_test

// An independent reader of the files the recorder writes: a Thrift compact
// decoder and a PLAIN page decoder written from the Parquet format's
// specification, sharing no code with parquet-go. It checks what other
// readers (pandas through pyarrow, DuckDB, polars) rely on: the magic, the
// footer, the schema's names, physical and logical types, the key/value
// metadata, and for an uncompressed file every value of every column.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
	flatwire "github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/internal/flatenc"
	"github.com/streamerd/streamerd/internal/record"
)

// tv is a decoded Thrift value.
type tv struct {
	i    int64
	b    []byte
	list []tv
	st   map[int16]tv
}

type tdec struct {
	b   []byte
	off int
}

var errShort = errors.New("thrift: input cut short")

func (d *tdec) byte1() byte {
	if d.off >= len(d.b) {
		panic(errShort)
	}
	d.off++
	return d.b[d.off-1]
}

func (d *tdec) uvarint() uint64 {
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		panic(errShort)
	}
	d.off += n
	return v
}

func (d *tdec) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (d *tdec) value(t byte) tv {
	switch t {
	case 1:
		return tv{i: 1}
	case 2:
		return tv{i: 0}
	case 3:
		return tv{i: int64(int8(d.byte1()))}
	case 4, 5, 6:
		return tv{i: d.varint()}
	case 7:
		if d.off+8 > len(d.b) {
			panic(errShort)
		}
		d.off += 8
		return tv{i: int64(binary.LittleEndian.Uint64(d.b[d.off-8:]))}
	case 8:
		n := int(d.uvarint())
		if n < 0 || d.off+n > len(d.b) {
			panic(errShort)
		}
		d.off += n
		return tv{b: d.b[d.off-n : d.off]}
	case 9, 10:
		h := d.byte1()
		n, et := int(h>>4), h&0x0F
		if n == 15 {
			n = int(d.uvarint())
		}
		var out tv
		for range n {
			if et == 1 || et == 2 { // a bool in a list is one byte
				out.list = append(out.list, tv{i: int64(d.byte1())})
				continue
			}
			out.list = append(out.list, d.value(et))
		}
		return out
	case 12:
		return tv{st: d.structv()}
	}
	panic(fmt.Errorf("thrift: type %d", t))
}

func (d *tdec) structv() map[int16]tv {
	m := map[int16]tv{}
	var last int16
	for {
		h := d.byte1()
		if h == 0 {
			return m
		}
		t, delta := h&0x0F, int16(h>>4)
		id := last + delta
		if delta == 0 {
			id = int16(d.varint())
		}
		last = id
		m[id] = d.value(t)
	}
}

// decodeStruct decodes one Thrift compact struct at the start of b and
// returns it and the bytes it took.
func decodeStruct(b []byte) (m map[int16]tv, n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	d := &tdec{b: b}
	m = d.structv()
	return m, d.off, nil
}

// Parquet's enumerations, as the format's IDL numbers them.
const (
	physINT32  = 1
	physINT64  = 2
	physFLOAT  = 4
	physDOUBLE = 5
	required   = 0
	encPLAIN   = 0
	codecNone  = 0
	pageDataV1 = 0
	pageDataV2 = 3
)

// colSpec is what a column's schema element says.
type colSpec struct {
	name     string
	phys     int64
	logical  string // "INT(8,false)", "TIMESTAMP(NANOS,true)", ""
	repeated int64
}

func logicalOf(lt tv) string {
	if lt.st == nil {
		return ""
	}
	if ts, ok := lt.st[8]; ok {
		unit := map[int16]string{1: "MILLIS", 2: "MICROS", 3: "NANOS"}
		u := "?"
		for k := range ts.st[2].st {
			u = unit[k]
		}
		return fmt.Sprintf("TIMESTAMP(%s,%v)", u, ts.st[1].i == 1)
	}
	if it, ok := lt.st[10]; ok {
		return fmt.Sprintf("INT(%d,%v)", it.st[1].i, it.st[2].i == 1)
	}
	return "other"
}

// footer reads a file's footer the way any Parquet reader starts.
func footer(t *testing.T, data []byte) map[int16]tv {
	t.Helper()
	if len(data) < 12 || string(data[:4]) != "PAR1" || string(data[len(data)-4:]) != "PAR1" {
		t.Fatal("no PAR1 magic at both ends")
	}
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	if n > len(data)-12 {
		t.Fatalf("footer length %d", n)
	}
	fb := data[len(data)-8-n : len(data)-8]
	md, used, err := decodeStruct(fb)
	if err != nil || used != len(fb) {
		t.Fatalf("footer: %v, %d of %d bytes", err, used, len(fb))
	}
	return md
}

// plainValues decodes the values of a required column chunk of an
// uncompressed file: page headers, then PLAIN values, as raw bits.
func plainValues(t *testing.T, data []byte, meta map[int16]tv) []uint64 {
	t.Helper()
	if meta[4].i != codecNone {
		t.Fatalf("codec %d, want none for this check", meta[4].i)
	}
	phys, numValues := meta[1].i, meta[5].i
	off := meta[9].i
	if d, ok := meta[11]; ok && d.i > 0 {
		t.Fatalf("dictionary page at %d: the recorder writes PLAIN", d.i)
	}
	var out []uint64
	for int64(len(out)) < numValues {
		ph, n, err := decodeStruct(data[off:])
		if err != nil {
			t.Fatalf("page header at %d: %v", off, err)
		}
		off += int64(n)
		size := ph[3].i
		body := data[off : off+size]
		off += size
		var count, levels int64
		switch ph[1].i {
		case pageDataV1:
			h := ph[5].st
			count = h[1].i
			if h[2].i != encPLAIN {
				t.Fatalf("encoding %d", h[2].i)
			}
		case pageDataV2:
			h := ph[8].st
			count, levels = h[1].i, h[5].i+h[6].i
			if h[4].i != encPLAIN || h[2].i != 0 {
				t.Fatalf("encoding %d, %d nulls", h[4].i, h[2].i)
			}
		default:
			t.Fatalf("page type %d", ph[1].i)
		}
		body = body[levels:]
		for k := range count {
			switch phys {
			case physINT32, physFLOAT:
				out = append(out, uint64(binary.LittleEndian.Uint32(body[4*k:])))
			case physINT64, physDOUBLE:
				out = append(out, binary.LittleEndian.Uint64(body[8*k:]))
			default:
				t.Fatalf("physical type %d", phys)
			}
		}
	}
	return out
}

// wantPhysLogical is what the schema must say for an element type.
func wantPhysLogical(typ datasource.Type) (int64, string) {
	switch typ {
	case datasource.Uint8, datasource.Char8:
		return physINT32, "INT(8,false)"
	case datasource.Int8:
		return physINT32, "INT(8,true)"
	case datasource.Uint16:
		return physINT32, "INT(16,false)"
	case datasource.Int16:
		return physINT32, "INT(16,true)"
	case datasource.Uint32:
		return physINT32, "INT(32,false)"
	case datasource.Int32:
		return physINT32, "INT(32,true)"
	case datasource.Uint64:
		return physINT64, "INT(64,false)"
	case datasource.Int64:
		return physINT64, "INT(64,true)"
	case datasource.Float32:
		return physFLOAT, ""
	}
	return physDOUBLE, ""
}

func TestIndependentReaderReadsTheFileAsWritten(t *testing.T) {
	const signals = "A:uint8,B:int8,C:uint16,D:int16,E:uint32,F:int32,G:uint64,H:int64,I:float32,J:float64[3],T:char8[4]"
	l, err := record.ForFlatUDP("127.0.0.1:1", signals, "little")
	if err != nil {
		t.Fatal(err)
	}
	fl, _ := flatwire.ParseLayout(signals)
	path := filepath.Join(t.TempDir(), "run.parquet")
	r, err := record.Create(l, record.Options{Path: path, Compression: "none", RowGroupBytes: 8 << 10})
	if err != nil {
		t.Fatal(err)
	}
	const rows = 700
	t0 := time.Unix(1700000000, 123)
	elems := make([]float64, fl.TotalElements())
	var want [][]uint64 // per column, the raw bits a PLAIN page holds
	want = make([][]uint64, 1+len(elems))
	for i := range rows {
		for k := range elems {
			elems[k] = float64((i*31+k*7)%250) - 100.25
		}
		d := flatenc.AppendValues(nil, fl, elems, flatwire.Little)
		raw := make([]uint64, len(elems))
		fl.DecodeRaw(raw, d, flatwire.Little)
		at := t0.Add(time.Duration(i) * time.Millisecond)
		if err := r.Row().FlatUDP(d, at); err != nil {
			t.Fatal(err)
		}
		if err := r.Commit(); err != nil {
			t.Fatal(err)
		}
		want[0] = append(want[0], uint64(at.UnixNano()))
		for k, v := range raw {
			if record.ElementType(fl, k).Size() < 8 {
				v &= math.MaxUint32 // INT32 and FLOAT pages hold 4 bytes
			}
			want[1+k] = append(want[1+k], v)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md := footer(t, data)
	if md[1].i != 2 || md[3].i != rows {
		t.Errorf("version %d, num_rows %d", md[1].i, md[3].i)
	}
	// Schema: the root, then one required leaf per column, in order.
	schema := md[2].list
	if len(schema) != 1+len(l.Columns) || schema[0].st[5].i != int64(len(l.Columns)) {
		t.Fatalf("%d schema elements, root with %d children; want %d columns", len(schema), schema[0].st[5].i, len(l.Columns))
	}
	for c, col := range l.Columns {
		el := schema[1+c].st
		got := colSpec{name: string(el[4].b), phys: el[1].i, logical: logicalOf(el[10]), repeated: el[3].i}
		phys, logical := wantPhysLogical(col.Type)
		if c == 0 {
			phys, logical = physINT64, "TIMESTAMP(NANOS,true)"
		}
		if got != (colSpec{name: col.Name, phys: phys, logical: logical, repeated: required}) {
			t.Errorf("column %d: %+v, want %s %d %s required", c, got, col.Name, phys, logical)
		}
	}
	// Key/value metadata: plain strings.
	kv := map[string]string{}
	for _, e := range md[5].list {
		kv[string(e.st[1].b)] = string(e.st[2].b)
	}
	if kv[record.MetaFormat] != "flatudp" || kv[record.MetaFlat] != signals || kv[record.MetaVersion] != record.SchemaVersion ||
		!strings.Contains(kv[record.MetaSignals], `"name":"J"`) || kv[record.MetaConfig] == "" {
		t.Errorf("metadata %v", kv)
	}
	// Every value of every column, row group by row group.
	got := make([][]uint64, len(l.Columns))
	var total int64
	for g, rg := range md[4].list {
		cols := rg.st[1].list
		if len(cols) != len(l.Columns) {
			t.Fatalf("row group %d has %d columns", g, len(cols))
		}
		total += rg.st[3].i
		for c, cc := range cols {
			meta := cc.st[3].st
			if path := meta[3].list; len(path) != 1 || string(path[0].b) != l.Columns[c].Name || meta[5].i != rg.st[3].i {
				t.Fatalf("row group %d column %d: path %v, %d values for %d rows", g, c, path, meta[5].i, rg.st[3].i)
			}
			got[c] = append(got[c], plainValues(t, data, meta)...)
		}
	}
	if total != rows || len(md[4].list) < 3 {
		t.Fatalf("%d rows in %d row groups", total, len(md[4].list))
	}
	for c := range got {
		for i := range got[c] {
			if got[c][i] != want[c][i] {
				t.Fatalf("column %s row %d: %#x, want %#x", l.Columns[c].Name, i, got[c][i], want[c][i])
			}
		}
	}
}
