package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/streamerd/streamerd/internal/regfile"
)

// Load refuses what is not a regular file before reading from it (a FIFO
// with no writer would block forever, /dev/zero would read forever) and a
// file over MaxFileSize before reading it whole.
func TestLoadRefusesNonRegularAndLarge(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "app.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.toml")
	fh, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := fh.Truncate(MaxFileSize + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	fh.Close()
	for _, tc := range []struct {
		path string
		want error
	}{{fifo, regfile.ErrNotRegular}, {"/dev/zero", regfile.ErrNotRegular}, {dir, regfile.ErrNotRegular}, {big, regfile.ErrTooLarge}} {
		f, err := Load(tc.path)
		if f != nil || !errors.Is(err, tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Load(%s) = %v, %v; want one line of %v", tc.path, f, err, tc.want)
		}
	}
}
