// Package configs embeds the example application configurations, app.toml being the daemon's default.
package configs

import "embed"

// Default is app.toml, the configuration streamerd runs when started
// without -config.
//
//go:embed app.toml
var Default []byte

// FS holds every example configuration (*.toml) of this directory.
//
//go:embed *.toml
var FS embed.FS

// Names returns the file names of the example configurations in FS, in
// lexical order.
func Names() []string {
	entries, _ := FS.ReadDir(".") // an embedded directory always reads
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names
}
