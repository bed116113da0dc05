package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Parquet's file layout: magic, column chunks, footer (a Thrift compact
// FileMetaData), its length, magic.
const (
	magic     = "PAR1"
	magicSize = 4
	tailSize  = 8 // footer length (uint32 LE) and magic
)

// maxFooter bounds a footer read back (Open, Repair, the row-group files
// of the writer): larger is refused before any of it is read.
const maxFooter = 256 << 20

// Thrift compact protocol type codes (parquet-format's Thrift IDL).
const (
	tI32    = 5
	tI64    = 6
	tBinary = 8
	tList   = 9
	tStruct = 12
)

// head is what a footer holds besides the row groups, each part encoded
// once: the schema, key/value metadata, created_by, column orders.
type head struct {
	schema  [][]byte
	kvs     [][]byte
	created string
	orders  [][]byte
}

// headOf encodes the parts of md that the footer repeats.
func headOf(md *format.FileMetaData, extra ...format.KeyValue) (*head, error) {
	var p thrift.CompactProtocol
	h := &head{created: md.CreatedBy}
	enc := func(v any) ([]byte, error) {
		b, err := thrift.Marshal(&p, v)
		return bytes.Clone(b), err
	}
	for i := range md.Schema {
		b, err := enc(&md.Schema[i])
		if err != nil {
			return nil, err
		}
		h.schema = append(h.schema, b)
	}
	kvs := append(append([]format.KeyValue(nil), md.KeyValueMetadata...), extra...)
	for i := range kvs {
		b, err := enc(&kvs[i])
		if err != nil {
			return nil, err
		}
		h.kvs = append(h.kvs, b)
	}
	for i := range md.ColumnOrders {
		b, err := enc(&md.ColumnOrders[i])
		if err != nil {
			return nil, err
		}
		h.orders = append(h.orders, b)
	}
	return h, nil
}

// compact appends the Thrift compact encoding of a struct's fields.
type compact struct {
	b    []byte
	last int16
}

func (c *compact) field(id int16, typ byte) {
	if d := id - c.last; d > 0 && d <= 15 {
		c.b = append(c.b, byte(d)<<4|typ)
	} else {
		c.b = append(c.b, typ)
		c.b = binary.AppendVarint(c.b, int64(id))
	}
	c.last = id
}

func (c *compact) i64(id int16, v int64) {
	c.field(id, tI64)
	c.b = binary.AppendVarint(c.b, v)
}

func (c *compact) i32(id int16, v int32) {
	c.field(id, tI32)
	c.b = binary.AppendVarint(c.b, int64(v))
}

func (c *compact) str(id int16, s string) {
	c.field(id, tBinary)
	c.b = binary.AppendUvarint(c.b, uint64(len(s)))
	c.b = append(c.b, s...)
}

// list starts a list field of n structs; the caller appends them.
func (c *compact) list(id int16, n int) {
	c.field(id, tList)
	if n < 15 {
		c.b = append(c.b, byte(n)<<4|tStruct)
	} else {
		c.b = append(c.b, 0xF0|tStruct)
		c.b = binary.AppendUvarint(c.b, uint64(n))
	}
}

func (c *compact) structs(id int16, elems [][]byte) {
	c.list(id, len(elems))
	for _, e := range elems {
		c.b = append(c.b, e...)
	}
}

// parquetVersion is FileMetaData.version: the format's version 2.
const parquetVersion = 2

// writeFooter writes a FileMetaData of h with numRows rows in n row
// groups, their encodings read in turn from next, then the footer's
// length and the closing magic. It returns the bytes written.
func writeFooter(w io.Writer, h *head, numRows int64, n int, next func() ([]byte, error)) (int64, error) {
	var c compact
	c.i32(1, parquetVersion)
	c.structs(2, h.schema)
	c.i64(3, numRows)
	c.list(4, n)
	total := int64(0)
	flush := func() error {
		k, err := w.Write(c.b)
		total += int64(k)
		c.b = c.b[:0]
		return err
	}
	if err := flush(); err != nil {
		return total, err
	}
	for range n {
		rg, err := next()
		if err != nil {
			return total, err
		}
		k, err := w.Write(rg)
		total += int64(k)
		if err != nil {
			return total, err
		}
	}
	if len(h.kvs) > 0 {
		c.structs(5, h.kvs)
	}
	if h.created != "" {
		c.str(6, h.created)
	}
	if len(h.orders) > 0 {
		c.structs(7, h.orders)
	}
	c.b = append(c.b, 0) // stop
	c.b = binary.LittleEndian.AppendUint32(c.b, uint32(total+int64(len(c.b))))
	c.b = append(c.b, magic...)
	return total, flush()
}

// Errors of a file's frame.
var (
	errNoMagic     = errors.New("no Parquet magic (PAR1) at the start")
	errNoTailMagic = errors.New("no Parquet magic (PAR1) at the end: the footer is missing (a recorder stopped before closing the file? see record -repair)")
)

// footerOf checks the frame of a whole Parquet file held in b (the
// writer's one-row-group files) and returns its footer bytes.
func footerOf(b []byte) ([]byte, error) {
	if len(b) < magicSize+tailSize || string(b[:magicSize]) != magic {
		return nil, errNoMagic
	}
	if string(b[len(b)-magicSize:]) != magic {
		return nil, errNoTailMagic
	}
	n := int64(binary.LittleEndian.Uint32(b[len(b)-tailSize:]))
	if n > int64(len(b)-magicSize-tailSize) {
		return nil, fmt.Errorf("footer length %d exceeds the file", n)
	}
	return b[int64(len(b)-tailSize)-n : len(b)-tailSize], nil
}

// chunkRange returns where a row group's column chunks lie: from the first
// page of the first column to the end of the last.
func chunkRange(rg *format.RowGroup) (start, end int64, err error) {
	if len(rg.Columns) == 0 {
		return 0, 0, errors.New("row group without columns")
	}
	start, end = -1, 0
	for i := range rg.Columns {
		m := &rg.Columns[i].MetaData
		s := m.DataPageOffset
		if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < s {
			s = m.DictionaryPageOffset
		}
		if s < magicSize || m.TotalCompressedSize < 0 {
			return 0, 0, fmt.Errorf("column %d: chunk at %d of %d bytes", i, s, m.TotalCompressedSize)
		}
		if start < 0 || s < start {
			start = s
		}
		end = max(end, s+m.TotalCompressedSize)
	}
	return start, end, nil
}

// moveRowGroup moves the offsets of a row group's chunks by delta, and
// drops the page index and bloom filters (the writer does not copy them).
func moveRowGroup(rg *format.RowGroup, delta int64, ordinal int) {
	for i := range rg.Columns {
		c := &rg.Columns[i]
		if c.FileOffset != 0 {
			c.FileOffset += delta
		}
		c.OffsetIndexOffset, c.OffsetIndexLength = 0, 0
		c.ColumnIndexOffset, c.ColumnIndexLength = 0, 0
		m := &c.MetaData
		m.DataPageOffset += delta
		if m.DictionaryPageOffset != 0 {
			m.DictionaryPageOffset += delta
		}
		if m.IndexPageOffset != 0 {
			m.IndexPageOffset += delta
		}
		m.BloomFilterOffset, m.BloomFilterLength = 0, 0
	}
	rg.FileOffset += delta
	rg.Ordinal = int16(ordinal)
}
