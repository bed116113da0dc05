package config

import "testing"

// TestScopeAddress: the scope's address is checked like HTTPAddress, and
// needs a UDPStreamer datasource to show.
func TestScopeAddress(t *testing.T) {
	f, err := Parse("t.toml", []byte(edit(t, baseUDPS, `HTTPAddress = "127.0.0.1:0"`, "HTTPAddress = \"127.0.0.1:0\"\nScopeAddress = \"127.0.0.1:0\"")))
	if err != nil || f.App.ScopeAddress != "127.0.0.1:0" {
		t.Fatalf("ScopeAddress %q, %v", f.App.ScopeAddress, err)
	}
	if f, _ := Parse("t.toml", []byte(baseUDPS)); f.App.ScopeAddress != "" {
		t.Errorf("default ScopeAddress %q, want off", f.App.ScopeAddress)
	}
	for _, c := range []struct{ name, base, edit, want string }{
		{"bad address", baseUDPS, `ScopeAddress = "localhost"`,
			`t.toml:3:1: App: ScopeAddress: expected host:port such as "127.0.0.1:8090" or "" to disable the scope, got "localhost"`},
		{"bad port", baseUDPS, `ScopeAddress = "localhost:99999"`,
			`t.toml:3:1: App: ScopeAddress: port must be 0..65535, got "99999"`},
		{"no UDPStreamer", "[App]\nScopeAddress = \"127.0.0.1:0\"\n" + baseFlat, "",
			`t.toml:2:1: App: ScopeAddress: the scope shows UDPStreamer and Replay datasources, and there is none`},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := c.base
			if c.edit != "" {
				src = edit(t, c.base, `HTTPAddress = "127.0.0.1:0"`, "HTTPAddress = \"127.0.0.1:0\"\n"+c.edit)
			}
			_, err := Parse("t.toml", []byte(src))
			if err == nil || err.Error() != c.want {
				t.Fatalf("got\n%v\nwant\n%s\nsource:\n%s", err, c.want, src)
			}
		})
	}
}
