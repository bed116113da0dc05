package record

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// maxGroups is the most row groups a file takes (a row group's ordinal is
// an int16 in the footer); the recorder rotates before.
const maxGroups = 32767

// memFile is the in-memory file parquet-go writes one row group into.
type memFile struct{ b []byte }

func (m *memFile) Write(p []byte) (int, error) {
	m.b = append(m.b, p...)
	return len(p), nil
}

// fileWriter writes one recording file and its sidecar index. One
// goroutine owns it.
type fileWriter struct {
	path  string
	f     *os.File
	idx   *os.File
	cfg   *parquet.WriterConfig
	names []string // the columns', for path_in_schema
	pw    *parquet.GenericWriter[any]
	cws   []*parquet.ColumnWriter
	mem   memFile
	rgb   bytes.Buffer
	rge   *thrift.Encoder
	fr    []byte // a frame being built
	head  *head

	off      int64 // bytes of the file: the magic and the chunks of the row groups written
	idxBytes int64
	groups   int
	rows     int64
	pending  int64 // rows handed to pw since the last row group
}

// createFile creates path and its index (neither may exist) and writes
// their heads.
func createFile(path string, cfg *parquet.WriterConfig, names []string) (fw *fileWriter, err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	idx, err := os.OpenFile(path+IndexSuffix, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	fw = &fileWriter{path: path, f: f, idx: idx, cfg: cfg, names: names}
	defer func() {
		if err != nil {
			f.Close()
			idx.Close()
			os.Remove(path)
			os.Remove(path + IndexSuffix)
		}
	}()
	fw.rge = thrift.NewEncoder(new(thrift.CompactProtocol).NewWriter(&fw.rgb))
	fw.pw = parquet.NewGenericWriter[any](&fw.mem, cfg)
	// The file without rows gives the footer's head.
	if err := fw.pw.Close(); err != nil {
		return nil, err
	}
	fb, err := footerOf(fw.mem.b)
	if err != nil {
		return nil, fmt.Errorf("parquet-go's empty file: %w", err)
	}
	var dec format.FooterDecoder
	md, _, err := dec.Decode(fb)
	if err != nil {
		return nil, err
	}
	if fw.head, err = headOf(md); err != nil {
		return nil, err
	}
	fw.fr = append(fw.fr[:0], indexMagic...)
	fw.fr = appendFrame(fw.fr, append([]byte{frameHead}, fb...))
	if _, err := idx.Write(fw.fr); err != nil {
		return nil, err
	}
	fw.idxBytes = int64(len(fw.fr))
	if _, err := f.WriteString(magic); err != nil {
		return nil, err
	}
	fw.off = magicSize
	fw.reset()
	return fw, nil
}

// reset starts the next row group's in-memory file.
func (fw *fileWriter) reset() {
	fw.mem.b = fw.mem.b[:0]
	fw.pw.Reset(&fw.mem)
	fw.cws = fw.pw.ColumnWriters()
	fw.pending = 0
}

// write hands n rows, kept column by column in cols, to the row group.
func (fw *fileWriter) write(cols [][]parquet.Value, n int) error {
	if n == 0 {
		return nil
	}
	for c, vals := range cols {
		if _, err := fw.cws[c].WriteRowValues(vals[:n]); err != nil {
			return fmt.Errorf("column %d: %w", c, err)
		}
	}
	fw.pending += int64(n)
	return nil
}

// endGroup writes the row group's column chunks to the file and its
// metadata to the index, in that order: an index frame always describes
// bytes already in the file.
func (fw *fileWriter) endGroup() error {
	if fw.pending == 0 {
		return nil
	}
	if err := fw.pw.Close(); err != nil {
		return err
	}
	fb, err := footerOf(fw.mem.b)
	if err != nil {
		return fmt.Errorf("parquet-go's row group: %w", err)
	}
	var dec format.FooterDecoder
	md, _, err := dec.Decode(fb)
	if err != nil {
		return err
	}
	if len(md.RowGroups) != 1 || md.RowGroups[0].NumRows != fw.pending {
		return fmt.Errorf("parquet-go wrote %d row groups for %d rows", len(md.RowGroups), fw.pending)
	}
	rg := &md.RowGroups[0]
	start, end, err := chunkRange(rg)
	if err != nil || end > int64(len(fw.mem.b)-tailSize-len(fb)) {
		return fmt.Errorf("parquet-go's row group: chunks [%d, %d) outside its file: %v", start, end, err)
	}
	if _, err := fw.f.Write(fw.mem.b[start:end]); err != nil {
		return err
	}
	moveRowGroup(rg, fw.off-start, fw.groups)
	// parquet-go v0.32.0's Writer.Reset loses path_in_schema from the
	// column chunks of the files written after it: set it again.
	if len(rg.Columns) != len(fw.names) {
		return fmt.Errorf("parquet-go wrote %d columns of %d", len(rg.Columns), len(fw.names))
	}
	for i := range rg.Columns {
		p := &rg.Columns[i].MetaData.PathInSchema
		*p = append((*p)[:0], fw.names[i])
	}
	fw.off += end - start
	fw.rgb.Reset()
	if err := fw.rge.Encode(rg); err != nil {
		return err
	}
	fw.fr = append(fw.fr[:0], frameGroup)
	fw.fr = appendUint64(fw.fr, uint64(fw.off))
	fw.fr = appendUint64(fw.fr, uint64(rg.NumRows))
	fw.fr = append(fw.fr, fw.rgb.Bytes()...)
	n := len(fw.fr)
	fw.fr = appendFrame(fw.fr, fw.fr[:n])
	if _, err := fw.idx.Write(fw.fr[n:]); err != nil {
		return err
	}
	fw.idxBytes += int64(len(fw.fr) - n)
	fw.groups++
	fw.rows += rg.NumRows
	fw.reset()
	return nil
}

func appendUint64(b []byte, v uint64) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
}

// close ends the row group, writes the footer from the index, syncs the
// file and removes the index.
func (fw *fileWriter) close() error {
	err := fw.endGroup()
	if err == nil {
		err = fw.writeFooter()
	}
	if err == nil {
		err = fw.f.Sync()
	}
	if cerr := fw.f.Close(); err == nil {
		err = cerr
	}
	fw.idx.Close()
	if err != nil {
		return fmt.Errorf("%s: %w (record -repair %s recovers the complete row groups)", fw.path, err, fw.path)
	}
	return os.Remove(fw.path + IndexSuffix)
}

func (fw *fileWriter) writeFooter() error {
	if _, err := fw.idx.Seek(0, io.SeekStart); err != nil {
		return err
	}
	ir, err := newIndexReader(fw.idx)
	if err != nil {
		return err
	}
	if _, err := ir.next(); err != nil { // the head, which fw.head holds
		return err
	}
	w := bufio.NewWriterSize(fw.f, 1<<16)
	if _, err := writeFooter(w, fw.head, fw.rows, fw.groups, func() ([]byte, error) {
		p, err := ir.next()
		if err != nil {
			return nil, err
		}
		_, _, rg, err := groupFrame(p)
		return rg, err
	}); err != nil {
		return err
	}
	return w.Flush()
}

// abort closes both files as they are, for a recorder that stops on an
// error: the file keeps its complete row groups and its index.
func (fw *fileWriter) abort() {
	fw.f.Close()
	fw.idx.Close()
}

var errClosed = errors.New("record: recorder closed")
