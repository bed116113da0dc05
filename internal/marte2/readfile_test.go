package marte2

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/streamerd/streamerd/internal/regfile"
)

// A named pipe or a device is refused before anything is read from it.
func TestReadFileRefusesNonRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "app.cfg")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, "/dev/zero"} {
		if _, err := ReadFile(p); !errors.Is(err, regfile.ErrNotRegular) {
			t.Errorf("ReadFile(%s): %v", p, err)
		}
	}
}
