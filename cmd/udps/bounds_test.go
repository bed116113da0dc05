package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client/udpstest"
	"github.com/streamerd/streamerd/datasource/udpstreamer/wire"
	"github.com/streamerd/streamerd/internal/cli"
	"github.com/streamerd/streamerd/internal/testenv"
)

func bigVector(n uint32) []wire.SignalInfo {
	return []wire.SignalInfo{
		{Name: "T", Type: datasource.Uint32, NumRows: 1, NumCols: 1, TimeSignalIdx: none, Unit: "us"},
		{Name: "Big", Type: datasource.Uint8, NumDimensions: 1, NumRows: 1, NumCols: n, TimeSignalIdx: 0, TimeMode: datasource.FirstSample, SamplingRate: 1e6},
	}
}

// TestCSVColumnCap: a CONFIG of one 4-million-element array would make a
// CSV header of 4 million columns; udps refuses it with a message, at once.
func TestCSVColumnCap(t *testing.T) {
	srv := udpstest.NewServer(t, bigVector(4<<20), 1400)
	var stdout, stderr testenv.Buffer
	code := run(context.Background(), []string{"-server", srv.Addr().String(), "-local", "127.0.0.1:0", "-format", "csv"}, &stdout, &stderr)
	if code != cli.ExitError || !strings.Contains(stderr.String(), "4194310 CSV columns") || !strings.Contains(stderr.String(), "-max-columns 16384") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if stdout.String() != "" {
		t.Errorf("stdout %q", stdout.String())
	}
	var usage testenv.Buffer
	if code := run(context.Background(), []string{"-max-columns", "0"}, &usage, &usage); code != cli.ExitUsage {
		t.Errorf("-max-columns 0: exit %d", code)
	}
}

// bigUpdate returns a Config of bigVector(n) and one update of it, received
// over loopback.
func bigUpdate(t *testing.T, n uint32) (*client.Config, *client.Update) {
	t.Helper()
	sigs := bigVector(n)
	srv := udpstest.NewServer(t, sigs, 65507)
	c, cfg := connected(t, srv, client.Options{})
	p, err := udpstest.Payload(sigs, 1, [][]float64{{7}})
	if err != nil {
		t.Fatal(err)
	}
	for k := range int(n) {
		p[12+k] = byte(k)
	}
	if err := srv.SendUpdate(0, p); err != nil {
		t.Fatal(err)
	}
	var u client.Update
	c.SetReadDeadline(time.Now().Add(wait))
	if err := c.Next(&u); err != nil {
		t.Fatal(err)
	}
	return cfg, &u
}

// TestLargeUpdateInBoundedMemory: printing a 1 MiB update as JSON, or as 1
// million per-sample rows, allocates a small buffer, not the decoded
// arrays nor the whole text.
func TestLargeUpdateInBoundedMemory(t *testing.T) {
	testenv.SkipIfRace(t)
	const n = 1 << 20
	cfg, u := bigUpdate(t, n)
	for _, o := range []options{{format: formatJSON}, {format: formatCSV, perSample: true}, {format: formatJSON, perSample: true}} {
		o.maxColumns = defaultMaxColumns
		var count countingWriter
		w := bufio.NewWriterSize(&count, 64<<10)
		p, err := newPrinter(context.Background(), cfg, o, w)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := p.write(u); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 || count.n < n {
			t.Errorf("%+v: %d bytes allocated to print %d bytes", o, alloc, count.n)
		}
	}
}

type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += len(p)
	return len(p), nil
}

// TestInterruptStopsALongUpdate: once the context ends, printing a long
// update stops at the next piece.
func TestInterruptStopsALongUpdate(t *testing.T) {
	cfg, u := bigUpdate(t, 1<<20)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var count countingWriter
	p, err := newPrinter(ctx, cfg, options{format: formatCSV, perSample: true, maxColumns: defaultMaxColumns}, bufio.NewWriter(&count))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.write(u); !errors.Is(err, context.Canceled) || count.n > 2*flushAt {
		t.Errorf("write: %v after %d bytes", err, count.n)
	}
}

// TestNamesEscaped: names and units with escape sequences, a bell, a
// newline and a C1 control reach the output escaped in every format; JSON
// keys stay exact.
func TestNamesEscaped(t *testing.T) {
	sigs := []wire.SignalInfo{
		{Name: "a\x1b]0;pwned\x07", Type: datasource.Uint8, NumRows: 1, NumCols: 1, TimeSignalIdx: none, Unit: "V\n"},
		{Name: "b\u009b2J\x1b[H", Type: datasource.Int8, NumDimensions: 1, NumRows: 1, NumCols: 2, TimeSignalIdx: none},
	}
	for _, format := range []string{"table", "csv", "json", "view"} {
		srv := udpstest.NewServer(t, sigs, 1400)
		r := runWith(t, srv, func() {
			p, _ := udpstest.Payload(sigs, 1, [][]float64{{1}, {-1, 2}})
			srv.SendUpdate(0, p)
		}, "-format", format, "-n", "1")
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", format, r.code, r.stderr)
		}
		out := r.stdout + r.stderr
		if format == "view" { // its own control sequences are the only ones
			for _, seq := range []string{termStart, termHome, termEOL, termEOS, termEnd} {
				out = strings.ReplaceAll(out, seq, "")
			}
		}
		if i := strings.IndexFunc(out, func(r rune) bool { return r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 }); i >= 0 {
			t.Errorf("%s: a control character at %d:\n%q", format, i, out)
		}
		if !strings.Contains(out, `a\x1b]0;pwned\a`) {
			t.Errorf("%s: no escaped name in\n%s", format, out)
		}
	}
}

// TestDefaultFormatIsTableIntoAPipe: without -format, a stdout that is not
// a terminal gets the line-per-update table, as before the view existed.
func TestDefaultFormatIsTableIntoAPipe(t *testing.T) {
	srv := udpstest.NewServer(t, testSigs(), 1400)
	r := runAgainst(t, srv, 2, "-n", "2")
	if r.code != 0 || !strings.Contains(r.stdout, "#1 hrt=1001 lost=0 skipped=0  T0=1000000") || strings.Contains(r.stdout, "\x1b") {
		t.Errorf("exit %d, stdout:\n%s", r.code, r.stdout)
	}
	if isTerminal(&bytes.Buffer{}) || isTerminal(io.Discard) {
		t.Error("a buffer taken for a terminal")
	}
}
