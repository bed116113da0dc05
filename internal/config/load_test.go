package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/internal/regfile"
	"github.com/streamerd/streamerd/internal/testenv"
)

// Load refuses what is not a regular file before reading from it (a FIFO
// with no writer would block forever, /dev/zero would read forever) and a
// file over MaxFileSize before reading it whole.
func TestLoadRefusesNonRegularAndLarge(t *testing.T) {
	dir := t.TempDir()
	fifo := testenv.Mkfifo(t, filepath.Join(dir, "app.toml"))
	big := testenv.SparseFile(t, filepath.Join(dir, "big.toml"), MaxFileSize+1)
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
