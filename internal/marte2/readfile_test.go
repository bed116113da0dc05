package marte2

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/streamerd/streamerd/internal/regfile"
	"github.com/streamerd/streamerd/internal/testenv"
)

// A named pipe or a device is refused before anything is read from it.
func TestReadFileRefusesNonRegular(t *testing.T) {
	fifo := testenv.Mkfifo(t, filepath.Join(t.TempDir(), "app.cfg"))
	for _, p := range []string{fifo, "/dev/zero"} {
		if _, err := ReadFile(p); !errors.Is(err, regfile.ErrNotRegular) {
			t.Errorf("ReadFile(%s): %v", p, err)
		}
	}
}
