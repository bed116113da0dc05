package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFile writes data to a file called name in a new temporary
// directory of tb, with permissions perm, and returns its path.
func WriteFile(tb testing.TB, name, data string, perm os.FileMode) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), perm); err != nil {
		tb.Fatal(err)
	}
	return p
}

// SparseFile makes a file of size bytes at path, without using the disk
// for them, and returns path.
func SparseFile(tb testing.TB, path string, size int64) string {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		tb.Fatal(err)
	}
	return path
}
