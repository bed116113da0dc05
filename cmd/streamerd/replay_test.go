package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/internal/replay/replaytest"
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

// TestReplayDataSourceCheckAndDescribe: -check opens a Replay's recording
// and names a missing one at its File key; -describe lists its signals.
func TestReplayDataSourceCheckAndDescribe(t *testing.T) {
	dir := t.TempDir()
	replaytest.Record(t, filepath.Join(dir, "shot.parquet"), 10, nil)
	text := "[App]\nHTTPAddress = \"\"\n\n[[DataSources]]\nName = \"Shot\"\nClass = \"Replay\"\nFile = \"shot.parquet\"\nAddress = \"127.0.0.1\"\n"
	good := filepath.Join(dir, "replay.toml")
	if err := os.WriteFile(good, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(binary, "-describe", "-config", good).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "datasource Shot (Replay)") || !strings.Contains(string(out), "  3  Wave     float32  16") {
		t.Errorf("-describe: %v\n%s", err, out)
	}
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte(strings.Replace(text, "shot.parquet", "gone.parquet", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(binary, "-check", "-config", bad).CombinedOutput()
	want := bad + `:7:1: DataSources[0] "Shot": File: open ` + filepath.Join(dir, "gone.parquet") + ": no such file or directory\n"
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || string(out) != want {
		t.Errorf("-check: %v\n%s\nwant exit 1 and\n%s", err, out, want)
	}
}
