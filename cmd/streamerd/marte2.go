package main

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/internal/app"
	"github.com/streamerd/streamerd/internal/config"
	"github.com/streamerd/streamerd/internal/marte2"
)

// importMARTe2 runs -import-marte2: it imports the MARTe2 application at
// path and prints the streamerd TOML on stdout, or with check the report
// of what maps, what is approximated and what is skipped, or with
// describe the layout of the imported application. Warnings and errors
// go to stderr. The imported TOML is always loaded and built, as -check
// does, before it is printed. It returns the exit code.
func importMARTe2(path string, partial, check, describe bool, stdout, stderr io.Writer) int {
	data, err := marte2.ReadFile(path)
	if err != nil {
		fmt.Fprintln(stderr, "streamerd:", err)
		return 1
	}
	res, err := marte2.Import(path, data, marte2.Options{Partial: partial})
	if res != nil && check {
		res.WriteReport(stdout)
	} else if res != nil {
		for _, n := range res.Warnings() {
			fmt.Fprintln(stderr, "warning:", n.Format(path))
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	name := path + " (imported)"
	f, err := config.Parse(name, res.TOML)
	if err != nil {
		fmt.Fprintf(stderr, "streamerd: the configuration imported from %s does not load:\n%v\n", path, err)
		return 1
	}
	for _, w := range f.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	a, err := app.Build(f, metrics.NewSet(), newDiscardLogger())
	if err != nil {
		fmt.Fprintf(stderr, "streamerd: the configuration imported from %s does not build:\n%v\n", path, err)
		return 1
	}
	switch {
	case check:
		fmt.Fprintf(stdout, "%s: the imported configuration is valid\n", path)
	case describe:
		a.Describe(stdout)
	default:
		stdout.Write(res.TOML)
	}
	return 0
}

func newDiscardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
