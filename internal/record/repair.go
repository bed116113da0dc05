package record

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go/format"
	"github.com/streamerd/streamerd/internal/regfile"
)

// RepairReport says what Repair kept of a file.
type RepairReport struct {
	RowGroups int
	Rows      int64
	Bytes     int64  // the repaired file's size
	Dropped   int64  // bytes cut after the last complete row group
	Why       string // why the index ended where it did, "" at its end
}

// ErrComplete is returned by Repair for a file that has its footer.
var ErrComplete = errors.New("the file is complete (it has its footer)")

// Repair rebuilds the footer of a recording file its recorder never
// closed (killed, or the machine stopped), from its sidecar index: it keeps
// every row group whose chunks are whole in the file, cuts what follows,
// writes the footer (with a MetaRepaired note) and removes the index. A
// file that has its footer is left alone (ErrComplete; a leftover index
// beside it is removed).
func Repair(path string) (RepairReport, error) {
	rep, err := repair(path)
	if err != nil {
		return rep, fmt.Errorf("record: repair %s: %w", path, err)
	}
	return rep, nil
}

func repair(path string) (rep RepairReport, err error) {
	f, st, err := regfile.OpenFile(path, os.O_RDWR)
	if err != nil {
		return rep, err
	}
	defer f.Close()
	size := st.Size()
	if size >= magicSize+tailSize {
		if _, err := checkFrame(f, size, path); err == nil {
			os.Remove(path + IndexSuffix)
			return rep, ErrComplete
		}
	}
	var m [magicSize]byte
	if _, err := f.ReadAt(m[:], 0); err != nil || string(m[:]) != magic {
		return rep, errNoMagic
	}
	idx, _, err := regfile.Open(path + IndexSuffix)
	if err != nil {
		return rep, fmt.Errorf("no index to repair from: %w", err)
	}
	defer idx.Close()
	// First pass: the row groups whose chunks are in the file.
	ir, err := newIndexReader(idx)
	if err != nil {
		return rep, fmt.Errorf("%s: %w", path+IndexSuffix, err)
	}
	if p, err := ir.next(); err != nil || len(p) < 1 || p[0] != frameHead {
		return rep, fmt.Errorf("%s: no head frame: %v", path+IndexSuffix, err)
	}
	end := int64(magicSize)
	for {
		p, err := ir.next()
		if err != nil {
			if err != errIndexEnd {
				rep.Why = err.Error()
			}
			break
		}
		e, rows, _, err := groupFrame(p)
		if err != nil || e <= end || e > size {
			rep.Why = fmt.Sprintf("row group %d ends at byte %d of a %d-byte file", rep.RowGroups, e, size)
			if err != nil {
				rep.Why = err.Error()
			}
			break
		}
		end, rep.Rows = e, rep.Rows+rows
		rep.RowGroups++
	}
	rep.Dropped = size - end
	note := fmt.Sprintf("kept %d row groups, %d rows; cut %d bytes after them", rep.RowGroups, rep.Rows, rep.Dropped)
	if _, err := idx.Seek(0, io.SeekStart); err != nil {
		return rep, err
	}
	h, err := readHead(idx, path, format.KeyValue{Key: MetaRepaired, Value: note})
	if err != nil {
		return rep, err
	}
	if err := f.Truncate(end); err != nil {
		return rep, err
	}
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		return rep, err
	}
	// Second pass: the footer.
	if _, err := idx.Seek(0, io.SeekStart); err != nil {
		return rep, err
	}
	if ir, err = newIndexReader(idx); err != nil {
		return rep, err
	}
	ir.next()
	w := bufio.NewWriterSize(f, 1<<16)
	n, err := writeFooter(w, h, rep.Rows, rep.RowGroups, func() ([]byte, error) {
		p, err := ir.next()
		if err != nil {
			return nil, err
		}
		_, _, rg, err := groupFrame(p)
		return rg, err
	})
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		return rep, err
	}
	rep.Bytes = end + n + tailSize
	return rep, os.Remove(path + IndexSuffix)
}

// readHead reads the head frame of an index (the footer of the file
// without row groups) and encodes it with extra key/values; it leaves the
// index at its start.
func readHead(idx *os.File, path string, extra ...format.KeyValue) (*head, error) {
	ir, err := newIndexReader(idx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path+IndexSuffix, err)
	}
	p, err := ir.next()
	if err != nil || len(p) < 1 || p[0] != frameHead {
		return nil, fmt.Errorf("%s: no head frame: %v", path+IndexSuffix, err)
	}
	// Checked as Open checks a footer before parquet-go decodes it: a
	// crafted count there would have it allocate without bound.
	if err := checkFooter(p[1:]); err != nil {
		return nil, fmt.Errorf("%s: head frame: %w", path+IndexSuffix, err)
	}
	var dec format.FooterDecoder // md lives while dec is not reused
	md, _, err := dec.Decode(p[1:])
	if err != nil {
		return nil, fmt.Errorf("%s: head frame: %w", path+IndexSuffix, err)
	}
	if _, err := idx.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return headOf(md, extra...)
}
