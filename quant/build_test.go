package quant

import (
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestCompilerChecks builds the package with the compiler's diagnostics on
// and fails if a kernel grows a per-element bounds check (IsInBounds; the
// IsSliceInBounds of the once-per-call or once-per-chunk reslices are
// expected) or if the per-sample index function stops inlining.
func TestCompilerChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: runs the compiler")
	}
	gobin := runtime.GOROOT() + "/bin/go"
	out, err := exec.Command(gobin, "build", "-o", "/dev/null",
		"-gcflags=-m -d=ssa/check_bce", "github.com/streamerd/streamerd/quant").CombinedOutput()
	if err != nil {
		t.Skipf("skipped: cannot run the compiler: %v\n%s", err, out)
	}
	if m := regexp.MustCompile(`(?m)^.*Found IsInBounds$`).FindAllString(string(out), -1); len(m) > 0 {
		t.Errorf("bounds checks in kernels:\n%s", strings.Join(m, "\n"))
	}
	for _, fn := range []string{"index", "(*Quantizer).Code"} {
		if !regexp.MustCompile(`(?m)can inline ` + regexp.QuoteMeta(fn) + `( |$)`).MatchString(string(out)) {
			t.Errorf("%s no longer inlines", fn)
		}
	}
}
