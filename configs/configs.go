// Package configs embeds the example application configurations, app.toml being the daemon's default.
package configs

import "embed"

// FS holds every example configuration (*.toml) of this directory, at its
// root: app.toml is the configuration streamerd runs when started without
// -config. fs.Glob(FS, "*.toml") lists them in lexical order.
//
//go:embed *.toml
var FS embed.FS
