package record

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/compress/uncompressed"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// Defaults of Options.
const (
	DefaultRowGroupBytes    = 8 << 20
	DefaultRowGroupInterval = 2 * time.Second
	DefaultCompression      = "snappy"
)

// Bounds of Options.
const (
	MinRowGroupInterval = 10 * time.Millisecond
	MinRotateSize       = 1 << 20
	MinRotateEvery      = time.Second
	// batchBytes bounds the rows kept column by column before they are
	// handed to parquet-go (24 bytes a value).
	batchBytes = 4 << 20
	maxBatch   = 1024
)

// Options configures a Recorder. The zero value of a field means its
// default.
type Options struct {
	// Path is the file to write, e.g. run.parquet. With rotation the files
	// are numbered before the extension: run-0001.parquet, run-0002.parquet …
	Path string
	// RowGroupBytes and RowGroupInterval end a row group when its values
	// reach this many bytes (as signal memory holds them) or when its first
	// row is this old: what a killed recorder can lose.
	RowGroupBytes    int64
	RowGroupInterval time.Duration
	// RotateSize and RotateEvery start a new file when the current one
	// reaches this many bytes or this age (0: never).
	RotateSize  int64
	RotateEvery time.Duration
	// Compression of the pages: "snappy" (default), "zstd" or "none".
	Compression string
}

// codec returns the compression codec called name.
func codec(name string) (compress.Codec, error) {
	switch name {
	case "", "snappy":
		return new(snappy.Codec), nil
	case "zstd":
		return &zstd.Codec{Level: zstd.SpeedFastest}, nil
	case "none":
		return new(uncompressed.Codec), nil
	}
	return nil, fmt.Errorf("compression %q: want snappy, zstd or none", name)
}

// Stats are a Recorder's counts; read them from any goroutine.
type Stats struct {
	Rows      uint64 // rows committed
	Kept      uint64 // rows in row groups written (what a kill would not lose)
	Bytes     uint64 // bytes written to the recording files, footers included
	Files     uint64 // files opened
	RowGroups uint64 // row groups written

	// What the rows' flags add up to.
	Lost, Skipped, Stale, Incomplete uint64
}

// flagCounts are the sums of the rows' flags.
type flagCounts struct{ lost, skipped, stale, incomplete atomic.Uint64 }

// Recorder writes the rows of one stream to a recording: row groups
// flushed by size and time, files rotated by size and duration. Row,
// Commit, Tick and Close belong to one goroutine; Stats and Path may be
// called from any.
type Recorder struct {
	l      *Layout
	opts   Options
	schema *parquet.Schema
	codec  compress.Codec
	row    *Row
	batch  int
	rowB   int64 // bytes of one row's values as signal memory holds them

	fw         *fileWriter
	fileNo     int
	fileStart  time.Time
	groupRows  int64
	groupStart time.Time
	last       time.Time // receive time of the last row committed
	closed     bool

	path                                    atomic.Pointer[string]
	rows, kept, bytes, files, groupsWritten atomic.Uint64
	flags                                   flagCounts
}

// Create checks opts and opens the first file of a recording of l. No
// file of the recording may exist.
func Create(l *Layout, opts Options) (*Recorder, error) {
	switch {
	case opts.Path == "":
		return nil, fmt.Errorf("record: no output file")
	case opts.RowGroupBytes < 0 || opts.RowGroupInterval < 0 || opts.RotateSize < 0 || opts.RotateEvery < 0:
		return nil, fmt.Errorf("record: sizes and durations must not be negative")
	case opts.RowGroupInterval != 0 && opts.RowGroupInterval < MinRowGroupInterval:
		return nil, fmt.Errorf("record: row group interval %v is below %v", opts.RowGroupInterval, MinRowGroupInterval)
	case opts.RotateSize != 0 && opts.RotateSize < MinRotateSize:
		return nil, fmt.Errorf("record: rotation size %d is below %d bytes", opts.RotateSize, MinRotateSize)
	case opts.RotateEvery != 0 && opts.RotateEvery < MinRotateEvery:
		return nil, fmt.Errorf("record: rotation interval %v is below %v", opts.RotateEvery, MinRotateEvery)
	}
	if opts.RowGroupBytes == 0 {
		opts.RowGroupBytes = DefaultRowGroupBytes
	}
	if opts.RowGroupInterval == 0 {
		opts.RowGroupInterval = DefaultRowGroupInterval
	}
	c, err := codec(opts.Compression)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	r := &Recorder{opts: opts, codec: c}
	r.setLayout(l)
	if err := r.open(time.Now()); err != nil {
		return nil, err
	}
	return r, nil
}

// setLayout makes l the layout of the files opened next.
func (r *Recorder) setLayout(l *Layout) {
	r.l, r.schema, r.rowB = l, l.Schema(), 0
	for _, col := range l.Columns {
		r.rowB += int64(max(col.Type.Size(), 4))
	}
	r.batch = max(1, min(maxBatch, batchBytes/(24*len(l.Columns))))
	r.row = newRow(l, r.batch, &r.flags)
}

// Layout returns the layout of the file being written.
func (r *Recorder) Layout() *Layout { return r.l }

// Relayout ends the file being written and continues the recording in the
// next file with layout l: a stream whose signal list changed (a new
// CONFIG). Row returns a new Row afterwards.
func (r *Recorder) Relayout(l *Layout, now time.Time) error {
	if r.closed {
		return errClosed
	}
	if err := r.endFile(); err != nil {
		return err
	}
	r.setLayout(l)
	return r.open(now)
}

// rotating reports whether files are numbered.
func (r *Recorder) rotating() bool { return r.opts.RotateSize > 0 || r.opts.RotateEvery > 0 }

// FileName returns the name of file n (from 1) of a recording to path:
// path itself for the first file without rotation, else path with -NNNN
// before its extension.
func FileName(path string, n int, rotating bool) string {
	if !rotating && n == 1 {
		return path
	}
	ext := filepath.Ext(path)
	num := strconv.Itoa(n)
	if len(num) < 4 {
		num = strings.Repeat("0", 4-len(num)) + num
	}
	return strings.TrimSuffix(path, ext) + "-" + num + ext
}

// open creates the next file.
func (r *Recorder) open(now time.Time) error {
	r.fileNo++
	path := FileName(r.opts.Path, r.fileNo, r.rotating())
	opts := []parquet.WriterOption{r.schema, parquet.Compression(r.codec), parquet.PageBufferSize(64 << 10),
		parquet.CreatedBy("streamerd", moduleVersion(), ""),
		parquet.KeyValueMetadata(MetaStarted, now.UTC().Format(time.RFC3339Nano)),
		parquet.KeyValueMetadata(MetaFileIndex, strconv.Itoa(r.fileNo))}
	for _, m := range r.l.metadata() {
		opts = append(opts, parquet.KeyValueMetadata(m.k, m.v))
	}
	cfg, err := parquet.NewWriterConfig(opts...)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	names := make([]string, len(r.l.Columns))
	for i := range names {
		names[i] = r.l.Columns[i].Name
	}
	fw, err := createFile(path, cfg, names)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	r.fw, r.fileStart = fw, now
	r.path.Store(&path)
	r.files.Add(1)
	r.bytes.Add(uint64(fw.off))
	return nil
}

// Path returns the file being written.
func (r *Recorder) Path() string {
	if p := r.path.Load(); p != nil {
		return *p
	}
	return ""
}

// Row returns the row to fill before Commit; the same Row every time.
func (r *Recorder) Row() *Row { return r.row }

// Commit keeps the row filled: it is written with its row group when the
// group reaches RowGroupBytes or RowGroupInterval (by the receive times),
// and the file is rotated after a row group when it reaches RotateSize or
// RotateEvery. It allocates only when a row group or a file ends.
func (r *Recorder) Commit() error {
	if r.closed {
		return errClosed
	}
	now := r.row.at
	r.last = now
	if r.groupRows == 0 {
		r.groupStart = now
	}
	r.groupRows++
	r.row.n++
	r.rows.Add(1)
	if r.row.n == r.batch {
		if err := r.writeBatch(); err != nil {
			return err
		}
	}
	if r.groupRows*r.rowB >= r.opts.RowGroupBytes || now.Sub(r.groupStart) >= r.opts.RowGroupInterval {
		return r.endGroup(now)
	}
	return nil
}

// Tick ends a row group older than RowGroupInterval at now: call it when
// no row came for a while, so a silence does not hold rows in memory.
func (r *Recorder) Tick(now time.Time) error {
	if r.closed || r.groupRows == 0 || now.Sub(r.groupStart) < r.opts.RowGroupInterval {
		return nil
	}
	return r.endGroup(now)
}

func (r *Recorder) writeBatch() error {
	err := r.fw.write(r.row.cols, r.row.n)
	r.row.n = 0
	if err != nil {
		return r.fail(err)
	}
	return nil
}

// endGroup writes the row group, then rotates if the file is due.
func (r *Recorder) endGroup(now time.Time) error {
	if err := r.writeBatch(); err != nil {
		return err
	}
	before := r.fw.off
	if err := r.fw.endGroup(); err != nil {
		return r.fail(err)
	}
	r.bytes.Add(uint64(r.fw.off - before))
	r.kept.Add(uint64(r.groupRows))
	r.groupsWritten.Add(1)
	r.groupRows = 0
	due := (r.opts.RotateSize > 0 && r.fw.off >= r.opts.RotateSize) ||
		(r.opts.RotateEvery > 0 && now.Sub(r.fileStart) >= r.opts.RotateEvery) ||
		r.fw.idxBytes >= maxFooter/2 || r.fw.groups >= maxGroups
	if !due {
		return nil
	}
	if err := r.closeFile(); err != nil {
		return err
	}
	return r.open(now)
}

func (r *Recorder) closeFile() error {
	off, path := r.fw.off, r.Path()
	err := r.fw.close()
	if st, serr := os.Stat(path); serr == nil && st.Size() > off {
		r.bytes.Add(uint64(st.Size() - off))
	}
	r.fw = nil
	if err != nil {
		r.closed = true
	}
	return err
}

// moduleVersion is the module's version for the files' created_by.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// fail stops the recorder on a write error: the file keeps what it had
// (its complete row groups and index, for Repair).
func (r *Recorder) fail(err error) error {
	r.closed = true
	if r.fw != nil {
		r.fw.abort()
	}
	return fmt.Errorf("record: %s: %w", r.Path(), err)
}

// endFile writes the pending rows and the footer of the current file.
func (r *Recorder) endFile() error {
	if err := r.writeBatch(); err != nil {
		return err
	}
	if r.groupRows > 0 {
		r.kept.Add(uint64(r.groupRows))
		r.groupsWritten.Add(1)
		r.groupRows = 0
	}
	return r.closeFile()
}

// Close writes the last row group and the footer. Later calls return nil.
func (r *Recorder) Close() error {
	if r.closed {
		return nil
	}
	err := r.endFile()
	r.closed = true
	return err
}

// Stats returns the counts.
func (r *Recorder) Stats() Stats {
	return Stats{Rows: r.rows.Load(), Kept: r.kept.Load(), Bytes: r.bytes.Load(), Files: r.files.Load(), RowGroups: r.groupsWritten.Load(),
		Lost: r.flags.lost.Load(), Skipped: r.flags.skipped.Load(), Stale: r.flags.stale.Load(), Incomplete: r.flags.incomplete.Load()}
}
