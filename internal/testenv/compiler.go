package testenv

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
)

// CompilerOutput builds the package of the test's working directory with
// the compiler flags gcflags (e.g. "-m" for inlining decisions) and returns
// what the compiler printed. It skips tb in -short mode and where the go
// command cannot build.
func CompilerOutput(tb testing.TB, gcflags string) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("skipped in -short: runs the compiler")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goBin, "build", "-o", "/dev/null", "-gcflags="+gcflags, ".").CombinedOutput()
	if err != nil {
		tb.Skipf("skipped: cannot run the compiler: %v\n%s", err, out)
	}
	return string(out)
}

// CheckInlined fails tb for each function of fns (named as the compiler
// names them, e.g. "(*T).M" or "T.M") that out, the output of
// CompilerOutput with -m, does not report as inlinable.
func CheckInlined(tb testing.TB, out string, fns ...string) {
	tb.Helper()
	for _, fn := range fns {
		if !regexp.MustCompile(`(?m)can inline ` + regexp.QuoteMeta(fn) + `( |$)`).MatchString(out) {
			tb.Errorf("%s no longer inlines", fn)
		}
	}
}
