package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// recordingOf writes a recording of 40 rows of the test stream in row
// groups of opts and returns its path, its bytes and its footer.
func recordingOf(t testing.TB, opts Options) (path string, b, footer []byte) {
	path = filepath.Join(t.TempDir(), "f.parquet")
	r, _ := writeFlat(t, path, 40, opts)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if footer, err = footerOf(b); err != nil {
		t.Fatal(err)
	}
	return path, b, footer
}

// footerOfFile returns the footer of a recording in row groups of 2 KiB.
func footerOfFile(t testing.TB) []byte {
	_, _, fb := recordingOf(t, Options{RowGroupBytes: 2 << 10})
	return fb
}

// TestCheckFooter: the footer of a recording passes; footers that would
// make parquet-go allocate from a count they declare, or nest without end,
// are refused before it reads them, each naming the rule.
func TestCheckFooter(t *testing.T) {
	if err := checkFooter(footerOfFile(t)); err != nil {
		t.Fatalf("a recording's footer: %v", err)
	}
	schema := func(elems ...[]byte) []byte {
		var c compact
		c.structs(fmdSchema, elems)
		return append(c.b, tStop)
	}
	const none = math.MinInt32 // no num_children field
	element := func(children int32) []byte {
		var c compact
		c.str(4, "x")
		if children != none {
			c.i32(seNumChild, children)
		}
		return append(c.b, tStop)
	}
	var deep compact // lists of lists, 20 deep
	deep.field(7, tList)
	for range 20 {
		deep.b = append(deep.b, 1<<4|tList)
	}
	deep.b = append(deep.b, 0<<4|tI32, tStop)
	var groups compact
	groups.list(fmdRowGroups, maxGroups+1)
	for range maxGroups + 1 {
		groups.b = append(groups.b, tStop)
	}
	groups.b = append(groups.b, tStop)
	for _, c := range []struct {
		name, footer, want string
	}{
		// The 22-byte file's footer: 2^31-1 schema elements.
		{"a count beyond the bytes", "\x19\xfc\xff\xff\xff\xff\x07\x00", "a list of 2147483647 elements"},
		{"a count beyond a column's worth", string(binary.AppendUvarint([]byte{0x19, 0xfc}, MaxColumns+2)) + strings.Repeat("\x00", MaxColumns+2), "a list of 65538 elements (at most 65537"},
		{"a string beyond the bytes", "\x18\xff\xff\x03ab\x00", "a string of 65535 bytes, 3 left"},
		{"a map beyond the bytes", "\x1b\x80\x01\x55\x00", "a list of 128 elements"},
		{"nested too deep", string(deep.b), "nested deeper than 16"},
		{"a nested schema", string(schema(element(2), element(1), element(0))), "schema element 1 has children"},
		{"a root that is not the columns' parent", string(schema(element(-1), element(none), element(none))), "the schema's root has -1 children, the schema 2 columns"},
		{"too many row groups", string(groups.b), "32768 row groups (at most 32767)"},
		{"cut short", "\x15", "cut short"},
		{"an unknown type", "\x1d\x00", "unknown Thrift type 13"},
	} {
		err := checkFooter([]byte(c.footer))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// A flat schema passes: the root holds the columns, they hold nothing.
	if err := checkFooter(schema(element(2), element(0), element(none))); err != nil {
		t.Errorf("a flat schema: %v", err)
	}
}

// TestOpenRefusesAFooterCount opens the 22-byte file that ran the process
// out of memory: it is refused at once.
func TestOpenRefusesAFooterCount(t *testing.T) {
	path := filepath.Join(t.TempDir(), "count.parquet")
	footer := []byte("\x15\x04\x19\xfc\xff\xff\xff\xff\x07\x00")
	b := append([]byte(magic), footer...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(footer)))
	if err := os.WriteFile(path, append(b, magic...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "a list of 2147483647 elements") {
		t.Fatalf("Open: %v", err)
	}
}

// FuzzCheckFooter walks footers of a recording corrupted: an error or
// nil, never a panic or a loop without end.
func FuzzCheckFooter(f *testing.F) {
	fb := footerOfFile(f)
	f.Add(fb)
	f.Add(fb[:len(fb)/2])
	f.Fuzz(func(t *testing.T, b []byte) { _ = checkFooter(b) })
}

// TestRowsRefuseAShortGroup: a row group holding fewer rows than its
// footer counts (the footer and its groups agreeing) is an error when its
// rows run out, not a recording that plays fewer rows than it announced.
func TestRowsRefuseAShortGroup(t *testing.T) {
	path, b, fb := recordingOf(t, Options{})
	rewrite(t, path, b, fb, func(md *format.FileMetaData) {
		md.RowGroups[0].NumRows += 1000
		md.NumRows += 1000
	}, func([]byte) {})
	if _, err := rowsError(t, path); err == nil || !strings.Contains(err.Error(), "40 rows where the footer counts 1040") {
		t.Fatalf("after the rows: %v", err)
	}
}

// rowsError opens the recording at path and reads its rows to the first
// error, which it returns with the file's layout (readAll fails the test
// on it).
func rowsError(t *testing.T, path string) (*Layout, error) {
	t.Helper()
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := f.Rows()
	defer rows.Close()
	for {
		if _, err := rows.Next(); err != nil {
			return f.Layout, err
		}
	}
}

// rewrite writes the recording at path again with its footer changed by
// edit and its bytes by poke.
func rewrite(t *testing.T, path string, b, fb []byte, edit func(*format.FileMetaData), poke func([]byte)) {
	t.Helper()
	var md format.FileMetaData
	var p thrift.CompactProtocol
	if err := thrift.Unmarshal(&p, fb, &md); err != nil {
		t.Fatal(err)
	}
	edit(&md)
	nb, err := thrift.Marshal(&p, &md)
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Clone(b[:len(b)-tailSize-len(fb)])
	poke(data)
	out := append(data, nb...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(nb)))
	if err := os.WriteFile(path, append(out, magic...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestChunksAndPagesAreChecked: row groups sharing chunks are refused at
// Open, and a page header parquet-go would size a buffer from (here a
// dictionary page, which recordings never hold) when its row group is
// read, naming the column.
func TestChunksAndPagesAreChecked(t *testing.T) {
	path, b, fb := recordingOf(t, Options{RowGroupBytes: 2 << 10})
	rewrite(t, path, b, fb, func(md *format.FileMetaData) {
		if len(md.RowGroups) < 2 {
			t.Fatalf("%d row groups", len(md.RowGroups))
		}
		n := md.RowGroups[1].NumRows
		md.RowGroups[1] = md.RowGroups[0]
		md.NumRows += md.RowGroups[0].NumRows - n
	}, func([]byte) {})
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "row group 1, column 0: its chunk") {
		t.Errorf("row groups sharing chunks: %v", err)
	}

	path, b, fb = recordingOf(t, Options{})
	var md format.FileMetaData
	var p thrift.CompactProtocol
	if err := thrift.Unmarshal(&p, fb, &md); err != nil {
		t.Fatal(err)
	}
	at := md.RowGroups[0].Columns[1].MetaData.DataPageOffset
	rewrite(t, path, b, fb, func(*format.FileMetaData) {}, func(data []byte) {
		// The page header starts with its type: field 1, an i32 (0x15),
		// then the type as a zigzag varint: 0 (v1) or 3 (v2), made 2.
		if data[at] != 0x15 || data[at+1] != 0x00 && data[at+1] != 0x06 {
			t.Fatalf("page header at %d begins % x", at, data[at:at+2])
		}
		data[at+1] = 0x04
	})
	l, err := rowsError(t, path)
	if want := fmt.Sprintf("row group 0: column %q: page at", l.Columns[1].Name); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "of type 2") {
		t.Errorf("a dictionary page: %v, want %q … of type 2", err, want)
	}
}

// TestPageBounds: each bound a page header must keep before parquet-go
// sizes a buffer from it.
func TestPageBounds(t *testing.T) {
	ok := pageFields{typ: pageData, encoding: encodingPlain, compressed: 100, uncompressed: 400, values: 50}
	if err := ok.check(10, 100); err != nil {
		t.Fatalf("a good page: %v", err)
	}
	for _, tc := range []struct {
		edit func(*pageFields)
		want string
	}{
		{func(p *pageFields) { p.typ = 2 }, "of type 2"},
		{func(p *pageFields) { p.encoding = 8 }, "in encoding 8"},
		{func(p *pageFields) { p.compressed = 101 }, "101 bytes, 100 left in its chunk"},
		{func(p *pageFields) { p.compressed = -1 }, "of -1 bytes"},
		{func(p *pageFields) { p.uncompressed = maxPageBytes + 1 }, fmt.Sprintf("%d bytes uncompressed (at most %d)", maxPageBytes+1, maxPageBytes)},
		{func(p *pageFields) { p.values = 401 }, "401 values in 400 bytes"},
	} {
		p := ok
		tc.edit(&p)
		left := int64(100)
		if err := p.check(10, left); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", p, err, tc.want)
		}
	}
	big := ok
	big.compressed = maxPageBytes + 1
	if err := big.check(10, 1<<40); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("(at most %d)", maxPageBytes)) {
		t.Errorf("a page beyond maxPageBytes in a large chunk: %v", err)
	}
}

// TestFooterBound: a footer beyond maxFooter is refused before it is read,
// in a (sparse) file large enough to hold it.
func TestFooterBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	size := int64(maxFooter + 1<<20)
	f.WriteAt([]byte(magic), 0)
	var tail [tailSize]byte
	binary.LittleEndian.PutUint32(tail[:], maxFooter+1)
	copy(tail[4:], magic)
	if _, err := f.WriteAt(tail[:], size-tailSize); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("footer of %d bytes, beyond the %d", maxFooter+1, maxFooter)) {
		t.Fatalf("Open: %v", err)
	}
}

// TestMetadataValueBound: a metadata value beyond maxMetaValue is refused.
func TestMetadataValueBound(t *testing.T) {
	path, b, fb := recordingOf(t, Options{})
	rewrite(t, path, b, fb, func(md *format.FileMetaData) {
		md.KeyValueMetadata = append(md.KeyValueMetadata, format.KeyValue{Key: "big", Value: strings.Repeat("x", maxMetaValue+1)})
	}, func([]byte) {})
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), fmt.Sprintf(`metadata "big" of %d bytes exceeds %d`, maxMetaValue+1, maxMetaValue)) {
		t.Fatalf("Open: %v", err)
	}
}

// TestIndexFrameBound: an index frame beyond maxFrame ends the index there,
// before anything of its size is allocated.
func TestIndexFrameBound(t *testing.T) {
	b := []byte(indexMagic)
	b = binary.LittleEndian.AppendUint32(b, maxFrame+1)
	b = binary.LittleEndian.AppendUint32(b, 0)
	ir, err := newIndexReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ir.next(); !errors.Is(err, errIndexEnd) || !strings.Contains(err.Error(), fmt.Sprintf("frame of %d bytes", maxFrame+1)) {
		t.Fatalf("next: %v", err)
	}
	if cap(ir.buf) != 0 {
		t.Errorf("allocated %d bytes for the frame", cap(ir.buf))
	}
}
