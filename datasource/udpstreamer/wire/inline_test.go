package wire

import (
	"os/exec"
	"strings"
	"testing"
)

// TestInlining fails if a per-element hot function stops inlining.
func TestInlining(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goBin, "build", "-gcflags=-m", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, fn := range []string{
		"Layout.WireOffset",
		"PacketType.Valid",
		"Layout.SegmentSize",
		"Layout.WireSize",
	} {
		if !strings.Contains(string(out), "can inline "+fn+" ") && !strings.Contains(string(out), "can inline "+fn+"\n") {
			t.Errorf("%s is not inlined", fn)
		}
	}
}
