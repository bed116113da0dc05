package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/cli"
	"github.com/streamerd/streamerd/internal/dstest"
	"github.com/streamerd/streamerd/internal/record"
	"github.com/streamerd/streamerd/internal/testenv"
)

var bin string

func TestMain(m *testing.M) { testenv.MainWithCommand(m, "record", &bin) }

func TestHelp(t *testing.T) {
	testenv.Help(t, "record", func(args []string, stdout, stderr io.Writer) int {
		return run(context.Background(), args, stdout, stderr)
	}, "udps", "flat", "rd100s", "o", "repair", "signals", "endian", "group", "iface", "duration", "rotate-size", "rotate-every",
		"row-group-size", "row-group-interval", "compression", "codes", "timeout", "status")
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-udps", "127.0.0.1:1"},
		{"-udps", "127.0.0.1:1", "-rd100s", "127.0.0.1:2", "-o", "x.parquet"},
		{"-rd100s", "127.0.0.1:1", "-o", "x.parquet", "-signals", "A:uint8"},
		{"-rd100s", "127.0.0.1:1", "-o", "x.parquet", "-codes"},
		{"-udps", "127.0.0.1:1", "-o", "x.parquet", "-rotate-size", "lots"},
		{"-repair", "x.parquet", "-o", "y.parquet"},
		{"-udps", "127.0.0.1:1", "-o", "x.parquet", "extra"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), args, io.Discard, &stderr); code != cli.ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, cli.ExitUsage)
		}
		if lines := strings.Count(stderr.String(), "\n"); lines != 1 {
			t.Errorf("%v: %d lines on stderr:\n%s", args, lines, &stderr)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"": 0, "1048576": 1 << 20, "512MiB": 512 << 20, "1GB": 1e9, "1.5 KiB": 1536, "2GiB": 2 << 30} {
		if got, err := parseSize("-x", in); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"-1", "1TB", "MiB", "1e30"} {
		if _, err := parseSize("-x", in); err == nil {
			t.Errorf("%q taken", in)
		}
	}
}

// producer streams a counter at about 1 kHz until the test ends.
func producer(t *testing.T) *udpstreamer.Streamer {
	t.Helper()
	s, err := udpstreamer.New(udpstreamer.Config{Name: "Live", Address: "127.0.0.1", HandOffDepth: 64, Signals: []datasource.Signal{
		{Name: "Counter", Type: datasource.Uint32},
		{Name: "Wave", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 100},
	}}, metrics.NewSet(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	dstest.Start(t, s)
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := uint32(1); !done.Load(); i++ {
			binary.LittleEndian.PutUint32(testenv.Must(s.GetSignalMemoryBuffer(0)), i)
			s.Synchronise()
			time.Sleep(time.Millisecond)
		}
	})
	t.Cleanup(func() {
		done.Store(true)
		wg.Wait()
	})
	return s
}

// startRecorder runs the record binary on s.
func startRecorder(t *testing.T, s *udpstreamer.Streamer, path string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-udps", s.LocalAddr().String(), "-o", path, "-status", "0"}, args...)...)
	cmd.Stdout, cmd.Stderr = &testenv.Buffer{}, &testenv.Buffer{}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd
}

// counters reads the Counter column of a recording, checks that it counts
// up, and returns the rows.
func counters(t *testing.T, path string) int {
	t.Helper()
	f, err := record.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := f.Layout
	c := l.Column("Counter")
	rs := f.Rows()
	defer rs.Close()
	n, prev := 0, uint64(0)
	for {
		row, err := rs.Next()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		v := l.Raw(row, c)
		if n > 0 && v <= prev {
			t.Fatalf("row %d: Counter %d after %d", n, v, prev)
		}
		prev = v
		n++
	}
}

// TestKilledRecorderIsRepaired kills a recording process with SIGKILL by
// its PID, then repairs its file: every row group completed before the
// kill is kept.
func TestKilledRecorderIsRepaired(t *testing.T) {
	s := producer(t)
	path := filepath.Join(t.TempDir(), "run.parquet")
	cmd := startRecorder(t, s, path, "-row-group-interval", "50ms")
	// Wait for a few row groups in the index.
	var sizes []int64
	testenv.Eventually(t, "three row groups", 20*time.Second, func() bool {
		st, err := os.Stat(path + record.IndexSuffix)
		if err == nil && (len(sizes) == 0 || st.Size() != sizes[len(sizes)-1]) {
			sizes = append(sizes, st.Size())
		}
		return len(sizes) >= 4
	})
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("recorder ended with %v, not by SIGKILL", cmd.ProcessState)
	}
	if _, err := record.Open(path); err == nil || !strings.Contains(err.Error(), "record -repair") {
		t.Fatalf("Open of the killed recorder's file: %v", err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-repair", path}, &stdout, &stderr); code != 0 {
		t.Fatalf("repair: exit %d\n%s%s", code, &stdout, &stderr)
	}
	t.Log(strings.TrimSpace(stdout.String()))
	if n := counters(t, path); n < 3 {
		t.Fatalf("%d rows kept", n)
	}
	if _, err := os.Stat(path + record.IndexSuffix); !os.IsNotExist(err) {
		t.Errorf("index left after repair: %v", err)
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"-repair", path}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "complete") {
		t.Errorf("second repair: exit %d: %s", code, &stdout)
	}
}

// TestSIGTERMWritesTheFooter: a recorder stopped by SIGTERM exits 0 with
// a complete file and no index; with rotation, every file is complete.
func TestSIGTERMWritesTheFooter(t *testing.T) {
	s := producer(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "run.parquet")
	cmd := startRecorder(t, s, path, "-rotate-every", "1s", "-row-group-interval", "100ms")
	testenv.Eventually(t, "a second file", 20*time.Second, func() bool {
		_, err := os.Stat(record.FileName(path, 2, true))
		return err == nil
	})
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("recorder: %v\n%s", err, cmd.Stderr)
	}
	if !strings.Contains(fmt.Sprint(cmd.Stdout), "rows (0 lost") {
		t.Logf("stdout: %s", cmd.Stdout)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		if strings.HasSuffix(f, record.IndexSuffix) {
			t.Errorf("index left: %s", f)
			continue
		}
		if n := counters(t, f); n == 0 && f == record.FileName(path, 1, true) {
			t.Errorf("%s: no rows", f)
		}
	}
	if len(files) < 2 {
		t.Errorf("files %v", files)
	}
}
