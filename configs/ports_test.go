package configs_test

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/configs"
	"github.com/streamerd/streamerd/internal/config"
)

// TestPortsDistinct: every example configuration has its own HTTP port,
// and the ones that listen on a fixed UDP port share it only with
// app.toml's alternate (burst.toml serves the same UDPStreamer port, so a
// client needs no change), so the README's producers run side by side.
func TestPortsDistinct(t *testing.T) {
	owner := map[string]string{} // address -> file
	claim := func(file, addr string) {
		if prev, ok := owner[addr]; ok && !(strings.HasPrefix(addr, "udp") && sameServer(prev, file)) {
			t.Errorf("%s and %s both listen on %s", prev, file, addr)
		}
		owner[addr] = file
	}
	names, _ := fs.Glob(configs.FS, "*.toml")
	for _, name := range names {
		data, _ := configs.FS.ReadFile(name)
		f, err := config.Parse(name, data)
		if err != nil {
			t.Fatal(err)
		}
		if f.App.HTTPAddress == "" {
			t.Errorf("%s: no HTTPAddress", name)
		}
		claim(name, "tcp "+f.App.HTTPAddress)
		if f.App.ScopeAddress != "" {
			claim(name, "tcp "+f.App.ScopeAddress)
		}
		for _, ds := range f.DataSources {
			switch {
			case ds.UDPStreamer != nil:
				claim(name, fmt.Sprintf("udp %d", ds.UDPStreamer.Port))
			case ds.RD100S != nil && ds.RD100S.SrcPort != 0:
				claim(name, fmt.Sprintf("udp %d", ds.RD100S.SrcPort))
			}
		}
	}
}

// sameServer reports whether two examples are the same UDPStreamer server
// in two variants, never run together.
func sameServer(a, b string) bool {
	return (a == "app.toml" && b == "burst.toml") || (a == "burst.toml" && b == "app.toml")
}
