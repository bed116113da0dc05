package config

import (
	"strconv"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

func TestLoopbackHost(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:9100": true, "127.1.2.3:0": true, "[::1]:9100": true, "localhost:9100": true,
		"0.0.0.0:9100": false, ":9100": false, "[::]:9100": false, "192.168.1.5:9100": false,
		"myhost:9100": false, "": false, "garbage": false,
	} {
		if got := LoopbackHost(addr); got != want {
			t.Errorf("LoopbackHost(%q) = %v", addr, got)
		}
	}
}

// An HTTPAddress off the loopback warns at -check: what is open, and what
// is refused without a token.
func TestHTTPExposureWarnings(t *testing.T) {
	for _, tc := range []struct {
		app  string
		want string // "" for no warning
	}{
		{`HTTPAddress = "127.0.0.1:0"`, ""},
		{`HTTPAddress = ""`, ""},
		{`HTTPAddress = "0.0.0.0:9100"`, `u.toml:2:1: App: HTTPAddress: HTTP is not on a loopback address and has no HTTPTokenFile: /metrics and /status are open to the network, and /force, /release and /degrade are refused`},
		{`HTTPAddress = ":9100"`, `/force, /release and /degrade are refused`},
		{`HTTPAddress = ":9100"` + "\nHTTPInsecureControl = true", `anyone who can reach it can force signals`},
		{`HTTPAddress = ":9100"` + "\nHTTPTokenFile = \"/run/streamerd/token\"", ""},
	} {
		checkAppWarning(t, tc.app, tc.want)
	}
}

func TestHTTPInsecureControlErrors(t *testing.T) {
	for app, want := range map[string]string{
		`HTTPAddress = "127.0.0.1:0"` + "\nHTTPInsecureControl = true":                        "no effect on a loopback HTTPAddress",
		`HTTPAddress = ""` + "\nHTTPInsecureControl = true":                                   "no effect with HTTP off",
		`HTTPAddress = ":1"` + "\nHTTPInsecureControl = true\nHTTPTokenFile = \"/run/token\"": "no effect with HTTPTokenFile",
	} {
		_, err := Parse("u.toml", []byte(edit(t, baseUDPS, `HTTPAddress = "127.0.0.1:0"`, app)))
		if err == nil || !strings.Contains(err.Error(), "u.toml:3:1: App: HTTPInsecureControl: has "+want) {
			t.Errorf("%q: %v", app, err)
		}
	}
}

// The scope off the loopback without a token warns like HTTP does; a token
// file every user can read warns; HTTPAllowedHosts takes names only.
func TestScopeAndTokenWarnings(t *testing.T) {
	open := testenv.WriteFile(t, "token", "s3cret-token-0123456789", 0o644)
	closed := testenv.WriteFile(t, "token", "s3cret-token-0123456789", 0o600)
	for _, tc := range []struct {
		app  string
		want string // "" for no warning
	}{
		{`HTTPAddress = "127.0.0.1:0"` + "\nScopeAddress = \"127.0.0.1:8090\"", ""},
		{`HTTPAddress = "127.0.0.1:0"` + "\nScopeAddress = \"0.0.0.0:8090\"", `u.toml:3:1: App: ScopeAddress: the scope is not on a loopback address and has no HTTPTokenFile: anyone who can reach it sees every signal`},
		{`HTTPAddress = "127.0.0.1:0"` + "\nScopeAddress = \":8090\"\nHTTPTokenFile = " + strconv.Quote(closed), ""},
		{`HTTPAddress = "127.0.0.1:0"` + "\nHTTPTokenFile = " + strconv.Quote(open), `App: HTTPTokenFile: ` + open + ` is readable by every user (mode 0644)`},
	} {
		checkAppWarning(t, tc.app, tc.want)
	}
	_, err := Parse("u.toml", []byte(edit(t, baseUDPS, `HTTPAddress = "127.0.0.1:0"`, `HTTPAddress = "127.0.0.1:0"`+"\nHTTPAllowedHosts = [\"ok.example\", \"bad.example:80\"]")))
	if err == nil || !strings.Contains(err.Error(), `u.toml:3:35: App HTTPAllowedHosts[1]: "bad.example:80": give the name without a port`) {
		t.Errorf("HTTPAllowedHosts with a port: %v", err)
	}
}

// checkAppWarning parses baseUDPS with app in place of its HTTPAddress
// line and checks that the warnings about [App] hold want ("": none).
func checkAppWarning(t *testing.T, app, want string) {
	t.Helper()
	f, err := Parse("u.toml", []byte(edit(t, baseUDPS, `HTTPAddress = "127.0.0.1:0"`, app)))
	if err != nil {
		t.Errorf("%s: %v", app, err)
		return
	}
	got := appWarnings(f)
	if (want == "") != (got == "") || !strings.Contains(got, want) {
		t.Errorf("%s: warnings %q, want %q", app, got, want)
	}
}

// appWarnings returns the warnings of f about its [App] table.
func appWarnings(f *File) string {
	var app Errors
	for _, w := range f.Warnings {
		if w.Where == "App" {
			app = append(app, w)
		}
	}
	return app.Error()
}
