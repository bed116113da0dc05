package record

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/parquet-go/parquet-go/format"
)

// The bounds checkFooter holds a footer to before parquet-go decodes it.
// parquet-go allocates a list's elements from its declared count, and
// builds a path per column for every level of nesting: a 22-byte footer
// claiming 2^31 schema elements, or a schema nested 100 000 deep, ran the
// process out of memory (a fatal error, beyond recover).
const (
	// maxThriftDepth bounds the nesting of structs and containers: a
	// recording's footer nests six deep (FileMetaData, RowGroup,
	// ColumnChunk, ColumnMetaData, Statistics, their fields).
	maxThriftDepth = 16
	// maxThriftList bounds any list, set or map: a column's worth.
	maxThriftList = MaxColumns + 1
)

// Thrift compact protocol type codes checkFooter skips, beside those the
// writer uses (footer.go).
const (
	tStop   = 0
	tTrue   = 1
	tFalse  = 2
	tByte   = 3
	tI16    = 4
	tDouble = 7
	tSet    = 10
	tMap    = 11
)

// FileMetaData's fields that checkFooter looks into.
const (
	fmdSchema    = 2 // list<SchemaElement>
	fmdRowGroups = 4 // list<RowGroup>
	seNumChild   = 5 // SchemaElement.num_children
)

var errThriftShort = errors.New("cut short")

// checkFooter walks the Thrift compact FileMetaData in b and refuses what
// would make decoding it costly or what the recorder never writes: a
// count beyond the bytes left or maxThriftList, nesting deeper than
// maxThriftDepth, more than MaxColumns columns or maxGroups row groups,
// and a nested schema (only the root has children). It allocates nothing.
func checkFooter(b []byte) error {
	w := thriftWalk{b: b}
	if err := w.fileMetaData(); err != nil {
		return fmt.Errorf("corrupt Parquet metadata: at byte %d of the footer: %w", w.i, err)
	}
	return nil
}

// thriftWalk reads a Thrift compact encoding without decoding it.
type thriftWalk struct {
	b     []byte
	i     int
	depth int
}

func (w *thriftWalk) left() int { return len(w.b) - w.i }

func (w *thriftWalk) byte() (byte, error) {
	if w.i >= len(w.b) {
		return 0, errThriftShort
	}
	w.i++
	return w.b[w.i-1], nil
}

func (w *thriftWalk) uvarint() (uint64, error) {
	v, n := binary.Uvarint(w.b[w.i:])
	if n <= 0 {
		return 0, errThriftShort
	}
	w.i += n
	return v, nil
}

// count reads a container's size and bounds it: each element takes at
// least per bytes.
func (w *thriftWalk) count(v uint64, per int) (int, error) {
	if v > uint64(maxThriftList) || v > uint64(w.left()/per) {
		return 0, fmt.Errorf("a list of %d elements (at most %d here)", v, min(maxThriftList, w.left()/per))
	}
	return int(v), nil
}

// field reads a field header: the field's id (from the last one's) and
// type; typ tStop ends the struct.
func (w *thriftWalk) field(last int16) (id int16, typ byte, err error) {
	h, err := w.byte()
	if err != nil {
		return 0, 0, err
	}
	typ = h & 0x0F
	if typ == tStop {
		return 0, tStop, nil
	}
	if d := h >> 4; d != 0 {
		return last + int16(d), typ, nil
	}
	v, err := w.uvarint()
	if err != nil {
		return 0, 0, err
	}
	return int16(v>>1) ^ -int16(v&1), typ, nil
}

// listHeader reads a list's or a set's header: its size and element type.
func (w *thriftWalk) listHeader() (n int, elem byte, err error) {
	h, err := w.byte()
	if err != nil {
		return 0, 0, err
	}
	size := uint64(h >> 4)
	if size == 15 {
		if size, err = w.uvarint(); err != nil {
			return 0, 0, err
		}
	}
	n, err = w.count(size, 1)
	return n, h & 0x0F, err
}

// value skips one value of type typ (in a struct: a bool field's value is
// its type).
func (w *thriftWalk) value(typ byte, inStruct bool) error {
	switch typ {
	case tTrue, tFalse:
		if !inStruct {
			_, err := w.byte()
			return err
		}
		return nil
	case tByte:
		_, err := w.byte()
		return err
	case tI16, tI32, tI64:
		_, err := w.uvarint()
		return err
	case tDouble:
		if w.left() < 8 {
			return errThriftShort
		}
		w.i += 8
		return nil
	case tBinary:
		v, err := w.uvarint()
		if err != nil {
			return err
		}
		if v > uint64(w.left()) {
			return fmt.Errorf("a string of %d bytes, %d left", v, w.left())
		}
		w.i += int(v)
		return nil
	case tList, tSet:
		n, elem, err := w.listHeader()
		if err != nil {
			return err
		}
		return w.nested(func() error {
			for range n {
				if err := w.value(elem, false); err != nil {
					return err
				}
			}
			return nil
		})
	case tMap:
		v, err := w.uvarint()
		if err != nil {
			return err
		}
		n, err := w.count(v, 2)
		if err != nil || n == 0 {
			return err
		}
		kv, err := w.byte()
		if err != nil {
			return err
		}
		return w.nested(func() error {
			for range n {
				if err := w.value(kv>>4, false); err != nil {
					return err
				}
				if err := w.value(kv&0x0F, false); err != nil {
					return err
				}
			}
			return nil
		})
	case tStruct:
		return w.structure(nil)
	}
	return fmt.Errorf("unknown Thrift type %d", typ)
}

// nested runs f one level deeper.
func (w *thriftWalk) nested(f func() error) error {
	if w.depth++; w.depth > maxThriftDepth {
		return fmt.Errorf("nested deeper than %d", maxThriftDepth)
	}
	err := f()
	w.depth--
	return err
}

// structure skips a struct, handing each field to look first (nil: none);
// look returns true when it consumed the field's value.
func (w *thriftWalk) structure(look func(id int16, typ byte) (bool, error)) error {
	return w.nested(func() error {
		var last int16
		for {
			id, typ, err := w.field(last)
			if err != nil || typ == tStop {
				return err
			}
			last = id
			if look != nil {
				done, err := look(id, typ)
				if err != nil {
					return err
				}
				if done {
					continue
				}
			}
			if err := w.value(typ, true); err != nil {
				return err
			}
		}
	})
}

// fileMetaData walks the footer, bounding the schema and the row groups.
func (w *thriftWalk) fileMetaData() error {
	return w.structure(func(id int16, typ byte) (bool, error) {
		if typ != tList || id != fmdSchema && id != fmdRowGroups {
			return false, nil
		}
		n, elem, err := w.listHeader()
		if err != nil {
			return true, err
		}
		if elem != tStruct {
			return true, fmt.Errorf("field %d holds type %d, not structs", id, elem)
		}
		if id == fmdRowGroups {
			if n > maxGroups {
				return true, fmt.Errorf("%d row groups (at most %d)", n, maxGroups)
			}
			return true, w.nested(func() error {
				for range n {
					if err := w.structure(nil); err != nil {
						return err
					}
				}
				return nil
			})
		}
		return true, w.nested(func() error {
			for k := range n {
				err := w.structure(func(id int16, typ byte) (bool, error) {
					if id != seNumChild || typ != tI32 {
						return false, nil
					}
					c, err := w.i32()
					if err != nil {
						return true, err
					}
					switch {
					case k == 0 && c != int64(n-1):
						return true, fmt.Errorf("the schema's root has %d children, the schema %d columns", c, n-1)
					case k > 0 && c != 0:
						return true, fmt.Errorf("schema element %d has children: a nested schema, which recordings never have", k)
					}
					return true, nil
				})
				if err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// Bounds of the pages checkPages lets parquet-go read. The recorder
// writes pages of about 64 KiB (PageBufferSize), PLAIN, without a
// dictionary; parquet-go reserves a buffer from a page header's sizes and
// counts before it reads the page.
const (
	maxPageBytes      = 16 << 20
	maxPageHeader     = 4 << 10
	pageData          = 0 // PageType DATA_PAGE
	pageDataV2        = 3 // PageType DATA_PAGE_V2
	encodingPlain     = 0
	phType            = 1 // PageHeader fields
	phUncompressed    = 2
	phCompressed      = 3
	phDataV1          = 5
	phDataV2          = 8
	dphNumValues      = 1 // DataPageHeader and DataPageHeaderV2
	dphEncoding       = 2 // DataPageHeader
	dphV2Encoding     = 4 // DataPageHeaderV2
	pageFieldsUnknown = -1
)

// pageFields are what checkPages reads of a page header.
type pageFields struct{ typ, uncompressed, compressed, values, encoding int64 }

// i32 reads a zigzag varint.
func (w *thriftWalk) i32() (int64, error) {
	v, err := w.uvarint()
	return int64(v>>1) ^ -int64(v&1), err
}

// pageHeader walks a PageHeader and returns the fields checkPages needs.
func (w *thriftWalk) pageHeader() (pageFields, error) {
	p := pageFields{pageFieldsUnknown, pageFieldsUnknown, pageFieldsUnknown, pageFieldsUnknown, pageFieldsUnknown}
	data := func(encodingField int16) func(id int16, typ byte) (bool, error) {
		return func(id int16, typ byte) (bool, error) {
			var err error
			switch {
			case typ != tI32:
				return false, nil
			case id == dphNumValues:
				p.values, err = w.i32()
			case id == encodingField:
				p.encoding, err = w.i32()
			default:
				return false, nil
			}
			return true, err
		}
	}
	err := w.structure(func(id int16, typ byte) (bool, error) {
		var err error
		switch {
		case typ == tStruct && id == phDataV1:
			err = w.structure(data(dphEncoding))
		case typ == tStruct && id == phDataV2:
			err = w.structure(data(dphV2Encoding))
		case typ != tI32:
			return false, nil
		case id == phType:
			p.typ, err = w.i32()
		case id == phUncompressed:
			p.uncompressed, err = w.i32()
		case id == phCompressed:
			p.compressed, err = w.i32()
		default:
			return false, nil
		}
		return true, err
	})
	return p, err
}

// checkPages walks the page headers of row group g's column chunks before
// parquet-go reads them, and refuses what would have it reserve memory
// from a corrupt size or count, or what the recorder never writes: a
// dictionary or index page, a page header beyond maxPageHeader, a page of
// another type or encoding than a PLAIN data page, larger than
// maxPageBytes or than the rest of its chunk, or holding more values than
// bytes. It reads each header (at most maxPageHeader bytes), not the
// pages; Open has checked that the chunks lie inside the file's data.
func (rf *File) checkPages(g int) error {
	md := rf.pf.Metadata()
	if g >= len(md.RowGroups) {
		return nil
	}
	var buf [maxPageHeader]byte
	for c := range md.RowGroups[g].Columns {
		if err := rf.checkChunk(&md.RowGroups[g].Columns[c].MetaData, &buf); err != nil {
			if c < len(rf.Layout.Columns) {
				return fmt.Errorf("column %q: %w", rf.Layout.Columns[c].Name, err)
			}
			return fmt.Errorf("column %d: %w", c, err)
		}
	}
	return nil
}

// checkChunk is checkPages for one column chunk, reading into buf.
func (rf *File) checkChunk(m *format.ColumnMetaData, buf *[maxPageHeader]byte) error {
	if m.DictionaryPageOffset > 0 || m.IndexPageOffset > 0 {
		return errors.New("a dictionary or index page, which recordings never have")
	}
	for off, end := m.DataPageOffset, m.DataPageOffset+m.TotalCompressedSize; off < end; {
		want := min(end-off, maxPageHeader)
		n, err := rf.f.ReadAt(buf[:want], off)
		if int64(n) < want {
			return fmt.Errorf("page header at %d: %w", off, err)
		}
		w := thriftWalk{b: buf[:n]}
		p, err := w.pageHeader()
		if err != nil {
			return fmt.Errorf("page header at %d: %w", off, err)
		}
		off += int64(w.i)
		if err := p.check(off, end-off); err != nil {
			return err
		}
		off += p.compressed
	}
	return nil
}

// check returns why parquet-go may not read the page whose header p ends
// at off, with left bytes of its chunk after it: not a PLAIN data page, or
// sizes and counts beyond the chunk or maxPageBytes.
func (p *pageFields) check(off, left int64) error {
	switch {
	case p.typ != pageData && p.typ != pageDataV2:
		return fmt.Errorf("page at %d of type %d; recordings hold data pages", off, p.typ)
	case p.encoding != encodingPlain:
		return fmt.Errorf("page at %d in encoding %d; recordings are PLAIN", off, p.encoding)
	case p.compressed < 0 || p.compressed > left || p.compressed > maxPageBytes:
		return fmt.Errorf("page at %d of %d bytes, %d left in its chunk (at most %d)", off, p.compressed, left, maxPageBytes)
	case p.uncompressed < 0 || p.uncompressed > maxPageBytes:
		return fmt.Errorf("page at %d of %d bytes uncompressed (at most %d)", off, p.uncompressed, maxPageBytes)
	case p.values < 0 || p.values > p.uncompressed:
		return fmt.Errorf("page at %d of %d values in %d bytes", off, p.values, p.uncompressed)
	}
	return nil
}
