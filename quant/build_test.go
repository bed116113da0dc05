package quant

import (
	"regexp"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

// TestCompilerChecks builds the package with the compiler's diagnostics on
// and fails if a kernel grows a per-element bounds check (IsInBounds; the
// IsSliceInBounds of the once-per-call or once-per-chunk reslices are
// expected) or if the per-sample index function or a vector helper stops
// inlining.
func TestCompilerChecks(t *testing.T) {
	out := testenv.CompilerOutput(t, "-m -d=ssa/check_bce")
	if m := regexp.MustCompile(`(?m)^.*Found IsInBounds$`).FindAllString(out, -1); len(m) > 0 {
		t.Errorf("bounds checks in kernels:\n%s", strings.Join(m, "\n"))
	}
	inline := []string{"index", "(*Quantizer).Code"}
	if simdBuild { // the vector helpers: called, their vectors would pass through memory
		inline = append(inline, "codes", "wide16", "store16[go.shape.uint8]", "store16[go.shape.uint16]",
			"codes4", "codes8", "wide8", "float8", "pack", "store[go.shape.uint8]", "codeSize[go.shape.uint16]")
	}
	testenv.CheckInlined(t, out, inline...)
}
