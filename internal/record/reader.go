package record

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/regfile"
)

// File is a recording opened for reading: its layout rebuilt from its
// metadata and checked against its schema. Rows reads it; one goroutine
// at a time.
type File struct {
	Path    string
	Layout  *Layout
	NumRows int64
	Meta    map[string]string

	f  *os.File
	pf *parquet.File
}

// Bounds of what Open trusts.
const (
	maxMetaValue = 16 << 20 // bytes of one metadata value
)

// Open opens the recording at path and checks it: a Parquet file with a
// footer, a recording of this package's schema version, whose columns
// match the signal list of its metadata. Every error names the file and
// what is wrong; a file that is not Parquet, cut short, or corrupt gives
// an error, never a panic; what is not a regular file (a named pipe, a
// device, a directory) is refused before it is read.
func Open(path string) (*File, error) {
	f, _, err := regfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	rf, err := open(f, path)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("record: %s: %w", path, err)
	}
	return rf, nil
}

// open does Open's work on f.
func open(f *os.File, path string) (rf *File, err error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	footerLen, err := checkFrame(f, size, path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			rf, err = nil, fmt.Errorf("corrupt Parquet metadata (%v)", p)
		}
	}()
	pf, err := parquet.OpenFile(f, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("corrupt Parquet metadata: %w", err)
	}
	md := pf.Metadata()
	meta := make(map[string]string, len(md.KeyValueMetadata))
	for _, kv := range md.KeyValueMetadata {
		if len(kv.Value) > maxMetaValue {
			return nil, fmt.Errorf("metadata %q of %d bytes exceeds %d", kv.Key, len(kv.Value), maxMetaValue)
		}
		meta[kv.Key] = kv.Value
	}
	v, ok := meta[MetaVersion]
	if !ok {
		return nil, fmt.Errorf("%w: no %q key in its metadata (written by %q)", ErrNotRecording, MetaVersion, md.CreatedBy)
	}
	if v != SchemaVersion {
		return nil, fmt.Errorf("recording schema version %q; this build reads version %s", v, SchemaVersion)
	}
	l, err := layoutOf(meta, len(pf.Schema().Fields()))
	if err != nil {
		return nil, err
	}
	if err := checkSchema(pf.Schema(), l); err != nil {
		return nil, err
	}
	var rows int64
	for i, rg := range md.RowGroups {
		if rg.NumRows < 0 || rows+rg.NumRows < rows {
			return nil, fmt.Errorf("row group %d claims %d rows", i, rg.NumRows)
		}
		rows += rg.NumRows
	}
	if rows != md.NumRows {
		return nil, fmt.Errorf("the footer counts %d rows, its row groups %d", md.NumRows, rows)
	}
	dataEnd := size - tailSize - footerLen
	// Every column chunk lies after the one before, inside the data: row
	// groups pointing at the same chunks would replay them again and again.
	next := int64(magicSize)
	for g := range md.RowGroups {
		for c := range md.RowGroups[g].Columns {
			m := &md.RowGroups[g].Columns[c].MetaData
			if m.DataPageOffset < next || m.TotalCompressedSize < 0 || m.TotalCompressedSize > dataEnd-m.DataPageOffset {
				return nil, fmt.Errorf("row group %d, column %d: its chunk of %d bytes at %d overlaps the chunk before (which ends at %d) or the footer (at %d)",
					g, c, m.TotalCompressedSize, m.DataPageOffset, next, dataEnd)
			}
			next = m.DataPageOffset + m.TotalCompressedSize
		}
	}
	return &File{Path: path, Layout: l, NumRows: rows, Meta: meta, f: f, pf: pf}, nil
}

// checkFrame checks the magics, the footer length and the footer's
// counts (checkFooter) before parquet-go reads anything, and returns the
// footer's length.
func checkFrame(f *os.File, size int64, path string) (int64, error) {
	if size < magicSize+tailSize {
		return 0, fmt.Errorf("not a Parquet file: %d bytes, too short", size)
	}
	var head, tail [tailSize]byte
	if _, err := f.ReadAt(head[:magicSize], 0); err != nil {
		return 0, err
	}
	if string(head[:magicSize]) != magic {
		return 0, fmt.Errorf("not a Parquet file: %w", errNoMagic)
	}
	if _, err := f.ReadAt(tail[:], size-tailSize); err != nil {
		return 0, err
	}
	if string(tail[magicSize:]) != magic {
		if _, err := os.Stat(path + IndexSuffix); err == nil {
			return 0, fmt.Errorf("no footer: the file was not closed, and its index %s is beside it: record -repair %s recovers its complete row groups", path+IndexSuffix, path)
		}
		return 0, errNoTailMagic
	}
	n := int64(binary.LittleEndian.Uint32(tail[:]))
	if n > size-magicSize-tailSize {
		return 0, fmt.Errorf("footer length %d does not fit the file's %d bytes (truncated or corrupt)", n, size)
	}
	if n > maxFooter {
		return 0, fmt.Errorf("footer of %d bytes, beyond the %d this reader takes", n, maxFooter)
	}
	footer := make([]byte, n)
	if _, err := f.ReadAt(footer, size-tailSize-n); err != nil {
		return 0, err
	}
	return n, checkFooter(footer)
}

// layoutOf rebuilds the layout a recording's metadata describes, for a
// file of n columns.
func layoutOf(meta map[string]string, n int) (*Layout, error) {
	format, source := Format(meta[MetaFormat]), meta[MetaSource]
	switch format {
	case RD100S:
		return ForRD100S(source), nil
	case FlatUDP:
		l, err := ForFlatUDP(source, meta[MetaFlat], meta[MetaOrder])
		if err != nil {
			return nil, fmt.Errorf("metadata %s: %w", MetaFlat, err)
		}
		return l, nil
	case UDPStreamer:
	default:
		return nil, fmt.Errorf("metadata %s is %q; want %s, %s or %s", MetaFormat, format, UDPStreamer, RD100S, FlatUDP)
	}
	config, err := base64.StdEncoding.DecodeString(meta[MetaConfig])
	if err != nil {
		return nil, fmt.Errorf("metadata %s: not base64: %w", MetaConfig, err)
	}
	l, err := forConfig(source, config, false)
	if err == nil && len(l.Columns) != n {
		l, err = forConfig(source, config, true)
	}
	if err != nil {
		return nil, fmt.Errorf("metadata %s: %w", MetaConfig, err)
	}
	return l, nil
}

// checkSchema checks that the file's columns are the layout's: names,
// order, types, all required leaves.
func checkSchema(s *parquet.Schema, l *Layout) error {
	fields := s.Fields()
	if len(fields) != len(l.Columns) {
		return fmt.Errorf("%d columns; its signal list makes %d", len(fields), len(l.Columns))
	}
	for i, f := range fields {
		c := &l.Columns[i]
		want := leafOf(c.Type)
		if c.kind == kTime {
			want = parquet.Timestamp(parquet.Nanosecond)
		}
		switch {
		case f.Name() != c.Name:
			return fmt.Errorf("column %d is %q; its signal list makes %q", i, f.Name(), c.Name)
		case !f.Leaf() || !f.Required():
			return fmt.Errorf("column %q is not a required leaf", c.Name)
		case f.Type().Kind() != want.Type().Kind() || f.Type().String() != want.Type().String():
			return fmt.Errorf("column %q is %v; its signal list makes %v", c.Name, f.Type(), want.Type())
		}
	}
	return nil
}

// Close closes the file.
func (rf *File) Close() error { return rf.f.Close() }

// Rows returns a reader of the file's rows in order.
func (rf *File) Rows() *Rows { return &Rows{f: rf, buf: make([]parquet.Row, 64)} }

// Rows reads a recording's rows, a row group at a time.
type Rows struct {
	f     *File
	group int // the next row group to open
	rr    parquet.Rows
	buf   []parquet.Row
	n, i  int
	read  int64
	// inGroup counts the rows read of the current row group, which must
	// come to its footer's count.
	inGroup int64
}

// Next returns the next row: one value per column, valid until the next
// call. It returns io.EOF after the last row, and an error naming the
// file, the row group and what is wrong for a corrupt page.
func (r *Rows) Next() (parquet.Row, error) {
	for r.i == r.n {
		if err := r.fill(); err != nil {
			return nil, err
		}
	}
	row := r.buf[r.i]
	r.i++
	return row, nil
}

func (r *Rows) fill() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("record: %s: row group %d: corrupt data (%v)", r.f.Path, r.group-1, p)
		}
	}()
	if r.rr == nil {
		groups := r.f.pf.RowGroups()
		if r.group == len(groups) {
			return io.EOF
		}
		if err := r.f.checkPages(r.group); err != nil {
			return fmt.Errorf("record: %s: row group %d: %w", r.f.Path, r.group, err)
		}
		r.rr = groups[r.group].Rows()
		r.group++
	}
	n, err := r.rr.ReadRows(r.buf)
	r.n, r.i = n, 0
	for _, row := range r.buf[:n] {
		if len(row) != len(r.f.Layout.Columns) {
			return fmt.Errorf("record: %s: row group %d: a row of %d values for %d columns", r.f.Path, r.group-1, len(row), len(r.f.Layout.Columns))
		}
	}
	r.read += int64(n)
	r.inGroup += int64(n)
	switch {
	case errors.Is(err, io.EOF):
		r.rr.Close()
		r.rr = nil
		if want := r.f.pf.RowGroups()[r.group-1].NumRows(); r.inGroup != want {
			r.n = 0
			return fmt.Errorf("record: %s: row group %d: %d rows where the footer counts %d (corrupt)", r.f.Path, r.group-1, r.inGroup, want)
		}
		r.inGroup = 0
	case err != nil:
		return fmt.Errorf("record: %s: row group %d: %w", r.f.Path, r.group-1, err)
	}
	return nil
}

// Close releases the reader of the current row group.
func (r *Rows) Close() error {
	if r.rr != nil {
		return r.rr.Close()
	}
	return nil
}

// Raw returns the value of column c of row as its bits, as the column's
// type lies in signal memory: unsigned integers zero-extended, signed ones
// sign-extended, floats as their IEEE bits; _time as ns since the epoch.
func (l *Layout) Raw(row parquet.Row, c int) uint64 {
	v := row[c]
	switch t := l.Columns[c].Type; t {
	case datasource.Uint64, datasource.Int64:
		return uint64(v.Int64())
	case datasource.Float32:
		return uint64(math.Float32bits(v.Float()))
	case datasource.Float64:
		return math.Float64bits(v.Double())
	case datasource.Uint8, datasource.Uint16, datasource.Uint32, datasource.Char8:
		return uint64(uint32(v.Int32()))
	}
	return uint64(int64(v.Int32()))
}

// describe is a short account of a file for messages.
func (rf *File) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s recording, %d signals, %d rows", rf.Path, rf.Layout.Format, len(rf.Layout.Signals), rf.NumRows)
	return b.String()
}
