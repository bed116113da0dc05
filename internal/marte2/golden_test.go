package marte2

import (
	"bytes"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/internal/app"
	"github.com/streamerd/streamerd/internal/config"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden imports every testdata/*.cfg and compares the TOML (or the
// errors) and the report with testdata/<name>.toml (or .err) and
// <name>.report. Every TOML is loaded with the real loader and built into
// an application, as streamerd -check does. Files named *-partial.cfg are
// imported with Partial.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.cfg"))
	if len(files) < 5 {
		t.Fatalf("testdata: only %d .cfg files", len(files))
	}
	for _, f := range files {
		base := strings.TrimSuffix(f, ".cfg")
		t.Run(filepath.Base(base), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Base(f)
			res, err := Import(name, data, Options{Partial: strings.HasSuffix(base, "-partial")})
			var out, report []byte
			ext := ".toml"
			if err != nil {
				ext = ".err"
				out = []byte(err.Error() + "\n")
			} else {
				out = res.TOML
				checkTOML(t, name, out)
			}
			if res != nil {
				var b bytes.Buffer
				res.WriteReport(&b)
				report = b.Bytes()
			}
			golden(t, base+ext, out)
			if report != nil {
				golden(t, base+".report", report)
			}
		})
	}
}

// checkTOML loads the imported configuration with the real loader and
// builds the application, as streamerd -check does.
func checkTOML(t *testing.T, name string, data []byte) {
	t.Helper()
	f, err := config.Parse(name+".toml", data)
	if err != nil {
		t.Fatalf("the imported TOML does not load:\n%v\n%s", err, data)
	}
	if _, err := app.Build(f, metrics.NewSet(), slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatalf("the imported TOML does not build:\n%v\n%s", err, data)
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// Every table of the TOML excerpt in docs/marte2.md is printed as it is
// by the import of testdata/udpsender.cfg.
func TestDocsExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "marte2.md"))
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join("testdata", "udpsender.toml"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "```toml\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok {
		t.Fatal("no TOML example in docs/marte2.md")
	}
	for _, table := range strings.Split(block, "\n\n") {
		if !strings.Contains(string(golden), table) {
			t.Errorf("docs/marte2.md shows a table testdata/udpsender.toml does not hold:\n%s", table)
		}
	}
}
