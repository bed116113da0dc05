package logsink

import (
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
)

func TestLinesInOrder(t *testing.T) {
	var out testenv.Buffer
	s := New(&out, Options{Buffer: 1 << 16, MaxLine: 256})
	var want strings.Builder
	for i := range 1000 {
		line := fmt.Sprintf("line %d\n", i)
		want.WriteString(line)
		s.Write([]byte(line))
		if i%100 == 0 {
			time.Sleep(time.Millisecond) // let the writer catch up: nothing dropped
		}
	}
	if !s.Close(10 * time.Second) {
		t.Fatal("Close timed out")
	}
	st := s.Stats()
	if st.Dropped == 0 && out.String() != want.String() {
		t.Fatalf("output differs:\n%.200s", out.String())
	}
	if st.Written+st.Dropped != 1000 {
		t.Errorf("stats %+v", st)
	}
}

// blockedWriter blocks every Write until released, like a pipe nobody
// reads.
type blockedWriter struct{ release chan struct{} }

func (b *blockedWriter) Write(p []byte) (int, error) { <-b.release; return len(p), nil }

// A writer that never returns (a full pipe, a stopped terminal) never
// blocks the process: lines beyond the buffer are dropped and counted.
func TestBlockedWriterNeverBlocks(t *testing.T) {
	bw := &blockedWriter{release: make(chan struct{})}
	s := New(bw, Options{Buffer: 4096, MaxLine: 256})
	done := make(chan struct{})
	go func() {
		for i := range 100000 {
			s.Write([]byte(fmt.Sprintf("line %d\n", i)))
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("Write blocked behind a blocked writer")
	}
	st := s.Stats()
	if st.Dropped < 90000 || st.Written+st.Dropped != 100000 {
		t.Errorf("stats %+v", st)
	}
	if s.Close(10 * time.Millisecond) {
		t.Error("Close reported a flush through a blocked writer")
	}
	close(bw.release)
}

type failingWriter struct{}

func (failingWriter) Write(p []byte) (int, error) { return 0, syscall.EPIPE }

// EPIPE (stderr's reader gone, SIGPIPE ignored) is counted, never returned.
func TestFailedWritesAreCounted(t *testing.T) {
	s := New(failingWriter{}, Options{Buffer: 4096, MaxLine: 256})
	for range 10 {
		if n, err := s.Write([]byte("x\n")); n != 2 || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
		time.Sleep(time.Millisecond)
	}
	s.Close(10 * time.Second)
	if st := s.Stats(); st.Failed == 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestLongLineTruncated(t *testing.T) {
	var out testenv.Buffer
	s := New(&out, Options{Buffer: 1 << 16, MaxLine: 64})
	s.Write([]byte(strings.Repeat("a", 1<<20) + "\n"))
	s.Write([]byte("next\n"))
	s.Close(10 * time.Second)
	got := out.String()
	lines := strings.SplitAfter(got, "\n")
	if len(lines) != 3 || len(lines[0]) > 64 || !strings.HasSuffix(lines[0], "…[truncated]\n") || lines[1] != "next\n" {
		t.Errorf("output %q", got)
	}
	if s.Stats().Truncated != 1 {
		t.Errorf("stats %+v", s.Stats())
	}
}

func TestWriteDoesNotAllocate(t *testing.T) {
	testenv.SkipIfRace(t)
	s := New(io.Discard, Options{Buffer: 1 << 16, MaxLine: 256})
	defer s.Close(time.Second)
	line := []byte("time=2026-01-01T00:00:00Z level=INFO msg=\"client connected\"\n")
	if n := testing.AllocsPerRun(1000, func() { s.Write(line) }); n != 0 {
		t.Errorf("Write: %v allocations", n)
	}
}
