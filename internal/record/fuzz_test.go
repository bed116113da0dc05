package record

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/internal/regfile"
	"github.com/streamerd/streamerd/internal/testenv"
)

// seedFiles are a small recording of the test stream in every compression.
func seedFiles(f *testing.F) [][]byte {
	var seeds [][]byte
	for _, c := range []string{"none", "snappy", "zstd"} {
		path := filepath.Join(f.TempDir(), c+".parquet")
		r, _ := writeFlat(f, path, 40, Options{RowGroupBytes: 2 << 10, Compression: c})
		if err := r.Close(); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzOpen feeds Open and Rows recordings cut short and corrupted: each
// gives rows or an error naming the file, never a panic.
func FuzzOpen(f *testing.F) {
	for _, b := range seedFiles(f) {
		f.Add(b)
		f.Add(b[:len(b)/2])               // cut short: no footer
		f.Add(b[:len(b)-3])               // cut in the tail
		f.Add(append([]byte{}, b[:4]...)) // the magic alone
		c := append([]byte(nil), b...)
		for i := 8; i < len(c)/2; i += 7 {
			c[i] ^= 0xA5 // pages corrupt, footer intact
		}
		f.Add(c)
		c = append([]byte(nil), b...)
		for i := len(c) - 60; i < len(c)-8; i += 3 {
			c[i] ^= 0x3C // footer corrupt
		}
		f.Add(c)
	}
	path := filepath.Join(f.TempDir(), "fuzz.parquet")
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		rf, err := Open(path)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error without the file's name: %v", err)
			}
			return
		}
		defer rf.Close()
		rs := rf.Rows()
		defer rs.Close()
		for n := int64(0); ; n++ {
			row, err := rs.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				if !strings.Contains(err.Error(), path) {
					t.Fatalf("error without the file's name: %v", err)
				}
				return
			}
			for c := range row {
				rf.Layout.Raw(row, c)
			}
			if n > rf.NumRows {
				t.Fatalf("more rows than the footer's %d", rf.NumRows)
			}
		}
	})
}

// killedRecording writes a recording whose recorder was killed after some
// row groups, and returns the file and its index.
func killedRecording(t testing.TB, dir string) (file, index []byte) {
	path := filepath.Join(dir, "killed.parquet")
	r, _ := writeFlat(t, path, 400, Options{RowGroupBytes: 4 << 10})
	r.fw.f.Write([]byte("partial chunk bytes"))
	r.fw.abort()
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if index, err = os.ReadFile(path + IndexSuffix); err != nil {
		t.Fatal(err)
	}
	return file, index
}

// FuzzRepair repairs a killed recording from indexes cut short and
// corrupted: a repaired file or an error, never a panic or an allocation
// a crafted count asks for.
func FuzzRepair(f *testing.F) {
	file, index := killedRecording(f, f.TempDir())
	f.Add(index)
	f.Add(index[:len(index)/2])
	c := append([]byte(nil), index...)
	for i := len(indexMagic) + 8; i < len(c); i += 5 {
		c[i] ^= 0x5A
	}
	f.Add(c)
	dir := f.TempDir()
	path := filepath.Join(dir, "fuzz.parquet")
	f.Fuzz(func(t *testing.T, idx []byte) {
		if err := os.WriteFile(path, file, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+IndexSuffix, idx, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Repair(path); err != nil {
			return
		}
		// Repaired: the file opens, or is refused with an error.
		if rf, err := Open(path); err == nil {
			rf.Close()
		}
	})
}

// TestRepairRefusesAFooterCount: an index whose head frame is a footer
// with a crafted count (the one Open refuses) is refused by Repair too,
// where parquet-go's decoder had asked for 192 GiB and killed the process.
func TestRepairRefusesAFooterCount(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "count.parquet")
	if err := os.WriteFile(path, []byte(magic+"somedata"), 0o644); err != nil {
		t.Fatal(err)
	}
	head := append([]byte{frameHead}, "\x15\x04\x19\xfc\xff\xff\xff\xff\x07\x00"...)
	if err := os.WriteFile(path+IndexSuffix, appendFrame([]byte(indexMagic), head), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Repair(path); err == nil || !strings.Contains(err.Error(), "head frame: corrupt Parquet metadata") {
		t.Fatalf("Repair: %v", err)
	}
}

// TestRepairRefusesAFIFO: a recording or an index that is a named pipe is
// refused at once, not waited on for a writer.
func TestRepairRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	file, _ := killedRecording(t, dir)
	fifo := testenv.Mkfifo(t, filepath.Join(dir, "fifo.parquet"))
	if _, err := Repair(fifo); !errors.Is(err, regfile.ErrNotRegular) {
		t.Errorf("Repair of a FIFO: %v", err)
	}
	path := filepath.Join(dir, "withfifo.parquet")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Mkfifo(t, path+IndexSuffix)
	if _, err := Repair(path); !errors.Is(err, regfile.ErrNotRegular) {
		t.Errorf("Repair with a FIFO for index: %v", err)
	}
}
