package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/internal/regfile"
	"github.com/streamerd/streamerd/internal/testenv"
)

// Load refuses what is not a regular file before reading from it (a FIFO
// with no writer would block forever, /dev/zero would read forever) and a
// file over MaxFileSize before reading it whole.
func TestLoadRefusesNonRegularAndLarge(t *testing.T) {
	dir := t.TempDir()
	fifo := testenv.Mkfifo(t, filepath.Join(dir, "app.toml"))
	big := testenv.SparseFile(t, filepath.Join(dir, "big.toml"), MaxFileSize+1)
	for _, tc := range []struct {
		path string
		want error
	}{{fifo, regfile.ErrNotRegular}, {"/dev/zero", regfile.ErrNotRegular}, {dir, regfile.ErrNotRegular}, {big, regfile.ErrTooLarge}} {
		f, err := Load(tc.path)
		if f != nil || !errors.Is(err, tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Load(%s) = %v, %v; want one line of %v", tc.path, f, err, tc.want)
		}
	}
}

// An Override (a command-line flag) meets the key's rules and warnings, and
// the messages name the flag instead of a line of the file; before, -http
// bypassed them (-check passed a port of 99999).
func TestOverrideMeetsTheRules(t *testing.T) {
	file := defaultConfig(t)
	for _, tc := range []struct {
		value, err, warning string
	}{
		{"127.0.0.1:99999", `app.toml: flag -http: App: HTTPAddress: port must be 0..65535, got "99999"`, ""},
		{"127.0.0.1:", `app.toml: flag -http: App: HTTPAddress: expected host:port`, ""},
		{":9100", "", "app.toml: flag -http: App: HTTPAddress: HTTP is not on a loopback address"},
		{"127.0.0.1:9200", "", ""},
	} {
		f, err := Parse("app.toml", file, Override{Path: "App.HTTPAddress", Value: tc.value, Flag: "-http"})
		switch {
		case tc.err != "":
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("-http %s: %v, want %q", tc.value, err, tc.err)
			}
			continue
		case err != nil:
			t.Errorf("-http %s: %v", tc.value, err)
			continue
		}
		if f.App.HTTPAddress != tc.value {
			t.Errorf("-http %s: HTTPAddress %q", tc.value, f.App.HTTPAddress)
		}
		warned := ""
		for _, w := range f.Warnings {
			warned += w.Error() + "\n"
		}
		if tc.warning != "" && !strings.Contains(warned, tc.warning) || tc.warning == "" && warned != "" {
			t.Errorf("-http %s: warnings %q, want %q", tc.value, warned, tc.warning)
		}
	}
}
