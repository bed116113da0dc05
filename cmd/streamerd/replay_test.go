package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestReplayFlags: replay flags without -replay, -replay beside a
// configuration and a bad speed are refused with one line and exit 2; a
// file that is not a recording exits 1 naming it.
func TestReplayFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-loop"}, 2, "-loop goes with -replay"},
		{[]string{"-replay", "x.parquet", "-config", "app.toml"}, 2, "-replay runs alone"},
		{[]string{"-replay", "x.parquet", "-speed", "20"}, 2, `-speed "20"`},
		{[]string{"-replay", "x.parquet", "-replay-addr", "nope"}, 2, "-replay-addr"},
		{[]string{"-replay", "testdata/app.toml", "-replay-addr", "127.0.0.1:0"}, 1, "testdata/app.toml: not a Parquet file"},
	} {
		out, err := exec.Command(binary, c.args...).CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != c.code || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", c.args, code, c.code, c.want, out)
		}
	}
}
