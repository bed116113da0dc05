package frame

import (
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

// TestInlining fails if a per-element hot function stops inlining.
func TestInlining(t *testing.T) {
	out := testenv.CompilerOutput(t, "-m")
	testenv.CheckInlined(t, out, "Layout.WireOffset", "PacketType.Valid", "Layout.SegmentSize", "Layout.WireSize")
}
