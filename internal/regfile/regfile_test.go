package regfile

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

func TestReadRegular(t *testing.T) {
	p := testenv.WriteFile(t, "a.toml", "x = 1\n", 0o600)
	got, err := Read(p, 6)
	if err != nil || string(got) != "x = 1\n" {
		t.Fatalf("Read = %q, %v", got, err)
	}
	if _, err := Read(p, 5); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "6 bytes, at most 5") {
		t.Errorf("one byte over: %v", err)
	}
	link := filepath.Join(t.TempDir(), "link.toml")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(link, 6); err != nil {
		t.Errorf("symlink to a regular file: %v", err)
	}
}

// /dev/zero would read forever and a FIFO with no writer would block
// forever: both are refused at once, as are directories and sockets.
func TestReadRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := testenv.Mkfifo(t, filepath.Join(dir, "fifo"))
	sock := filepath.Join(dir, "sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for path, what := range map[string]string{"/dev/zero": "a device", fifo: "a named pipe", dir: "a directory", sock: "a socket"} {
		_, err := Read(path, 16<<20)
		if sock == path && err != nil && !errors.Is(err, ErrNotRegular) {
			continue // opening a socket fails on its own (ENXIO)
		}
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), what) || !strings.HasPrefix(err.Error(), path+": ") {
			t.Errorf("%s: %v", path, err)
		}
	}
}

// A file's bytes are allocated once, at its size: reading 4 MB costs
// about 4 MB, not the doublings of a growing buffer.
func TestReadAllocatesOnce(t *testing.T) {
	const size = 4 << 20
	p := testenv.WriteFile(t, "big.cfg", strings.Repeat("x", size), 0o600)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	data, err := Read(p, size)
	runtime.ReadMemStats(&after)
	if err != nil || len(data) != size {
		t.Fatalf("Read: %d bytes, %v", len(data), err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > size+64<<10 {
		t.Errorf("%d bytes allocated to read %d", got, size)
	}
}
