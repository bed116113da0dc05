package config

import (
	"testing"
)

// BenchmarkParseApp measures loading the default configuration (start-up
// cost only; nothing here runs on the RT path).
func BenchmarkParseApp(b *testing.B) {
	b.ReportAllocs()
	data := defaultConfig(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse("app.toml", data); err != nil {
			b.Fatal(err)
		}
	}
}
