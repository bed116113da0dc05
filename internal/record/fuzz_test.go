package record

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
