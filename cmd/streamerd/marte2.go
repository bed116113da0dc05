package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"runtime/metrics"
	"sort"
	"sync"

	vmetrics "github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/internal/app"
	"github.com/streamerd/streamerd/internal/config"
	"github.com/streamerd/streamerd/internal/marte2"
)

// importMARTe2 runs -import-marte2: it imports the MARTe2 application at
// path and prints the streamerd TOML on stdout, or with check the report
// of what maps, what is approximated and what is skipped, or with
// describe the layout of the imported application. Warnings and errors
// go to stderr. The imported TOML is always loaded and built, as -check
// does, before it is printed; what the loader finds wrong in it is
// reported at the line of the MARTe2 file it comes from. It returns the
// exit code.
func importMARTe2(path string, o options, stdout, stderr io.Writer) int {
	data, err := marte2.ReadFile(path)
	if err != nil {
		fmt.Fprintln(stderr, "streamerd:", err)
		return 1
	}
	opt := marte2.Options{Partial: o.partial}
	if o.httpSet {
		opt.HTTPAddress, opt.NoHTTP = o.http, o.http == ""
	}
	// The import, and the printing of what it found, run under a soft
	// memory limit: importLimit times the file's size beyond what the
	// process holds already (debug.SetMemoryLimit), so that the garbage
	// collector reclaims the import's garbage before the heap doubles.
	lift := limitMemory(importLimit * int64(len(data)))
	defer lift()
	res, err := marte2.Import(path, data, opt)
	if res != nil && o.check {
		res.WriteReport(stdout)
	} else if res != nil {
		for _, n := range res.Warnings() {
			fmt.Fprintln(stderr, "warning:", n.Format(path))
		}
	}
	if err != nil {
		// One line per error, as Errors prints them, without building
		// them all into one string first (a file can hold many).
		if es, ok := err.(marte2.Errors); ok {
			for _, e := range es {
				fmt.Fprintln(stderr, e)
			}
		} else {
			fmt.Fprintln(stderr, err)
		}
		return 1
	}
	lift()
	name := path + " (imported)"
	f, err := config.Parse(name, res.TOML)
	if err != nil {
		fmt.Fprintf(stderr, "streamerd: the configuration imported from %s does not load:\n%v\n", path, toMARTe2(err, name, path, res))
		return 1
	}
	for _, w := range f.Warnings {
		fmt.Fprintln(stderr, "warning:", toMARTe2(w, name, path, res))
	}
	a, err := app.Build(f, vmetrics.NewSet(), newDiscardLogger())
	if err != nil {
		fmt.Fprintf(stderr, "streamerd: the configuration imported from %s does not build:\n%v\n", path, toMARTe2(err, name, path, res))
		return 1
	}
	switch {
	case o.check:
		fmt.Fprintf(stdout, "%s: the imported configuration is valid\n", path)
	case o.describe:
		a.Describe(stdout)
	default:
		stdout.Write(res.TOML)
	}
	return 0
}

// importLimit is the memory the import may use beyond what the process
// holds before it, in multiples of the file's size (docs/marte2.md).
const importLimit = 10

// limitMemory sets a soft memory limit of n bytes beyond what the
// process holds now, and returns the function that lifts it (once; later
// calls do nothing). The limit is the process's: a second caller waits
// until the first lifts it.
func limitMemory(n int64) (lift func()) {
	memoryLimit.Lock()
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(sample)
	prev := debug.SetMemoryLimit(int64(sample[0].Value.Uint64()) + n)
	var once sync.Once
	return func() {
		once.Do(func() {
			debug.SetMemoryLimit(prev)
			memoryLimit.Unlock()
		})
	}
}

// memoryLimit is held while limitMemory's limit is set.
var memoryLimit sync.Mutex

// toMARTe2 repositions the loader's errors in err that name a line of the
// imported TOML (file name) at the line of the MARTe2 file (path) that
// line comes from, sorted by that position, and returns err. Errors
// without a position are left as they are.
func toMARTe2(err error, name, path string, res *marte2.Result) error {
	var moved []*config.Error
	var walk func(error)
	walk = func(err error) {
		var e *config.Error
		switch x := err.(type) {
		case *config.Error:
			e = x
		case interface{ Unwrap() []error }:
			for _, c := range x.Unwrap() {
				walk(c)
			}
			return
		default:
			if errors.As(err, &e) {
				break
			}
			return
		}
		if e.File != name {
			return
		}
		if p, ok := res.Source(e.Line); ok {
			e.File, e.Line, e.Col = path, p.Line, p.Col
			moved = append(moved, e)
		}
	}
	walk(err)
	if es, ok := err.(config.Errors); ok && len(moved) == len(es) {
		sort.SliceStable(es, func(i, j int) bool {
			a, b := es[i], es[j]
			return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
		})
	}
	return err
}

func newDiscardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
