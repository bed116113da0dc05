package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcessGrows: CPU spent spinning shows in Process, which never goes
// back (0 everywhere on systems without getrusage).
func TestProcessGrows(t *testing.T) {
	c0 := Process()
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		if c0 != 0 {
			t.Fatalf("Process() = %v where it is not read", c0)
		}
		return
	}
	for Process()-c0 < 10*time.Millisecond {
		spin()
	}
}

var sink uint64

func spin() {
	for i := range 1_000_000 {
		sink += uint64(i)
	}
}
