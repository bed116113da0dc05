package config

import (
	"testing"

	"github.com/streamerd/streamerd/configs"
)

// BenchmarkParseApp measures loading the default configuration (start-up
// cost only; nothing here runs on the RT path).
func BenchmarkParseApp(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(configs.Default)))
	for b.Loop() {
		if _, err := Parse("app.toml", configs.Default); err != nil {
			b.Fatal(err)
		}
	}
}
