package config

import (
	"errors"
	"fmt"
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

// Two datasources on one UDP port of overlapping addresses, or the scope on
// HTTP's port, are refused at -check, at the second one's key; the start
// had failed on them with "address already in use".
func TestPortClashes(t *testing.T) {
	other := "\n[[DataSources]]\nName = \"Other\"\nClass = \"UDPStreamer\"\nAddress = \"%s\"\nPort = %d\n[[DataSources.Signals]]\nName = \"A\"\nType = \"uint32\"\n"
	for _, tc := range []struct {
		addr string
		port int
		want bool
	}{
		{"127.0.0.1", 44500, true}, // the Streamer of app.toml binds every address
		{"", 44500, true},
		{"127.0.0.1", 44501, false},
	} {
		data := append(defaultConfig(t), fmt.Sprintf(other, tc.addr, tc.port)...)
		_, err := Parse("app.toml", data)
		got := err != nil && strings.Contains(err.Error(), `Port: UDP port 44500 is datasource "Streamer"'s too`)
		if got != tc.want {
			t.Errorf("Other on %q port %d: %v", tc.addr, tc.port, err)
		}
	}
	_, err := Parse("app.toml", defaultConfig(t), Override{Path: "App.ScopeAddress", Value: "127.0.0.1:9100", Flag: "-scope"})
	if err == nil || !strings.Contains(err.Error(), "ScopeAddress: is on HTTPAddress's port 9100") {
		t.Errorf("the scope on HTTP's address: %v", err)
	}
}
