// Package logsink is the daemon's log writer: it never blocks and never fails its caller, dropping and counting what it cannot write.
package logsink

import (
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// truncMarker ends a line cut at Options.MaxLine.
const truncMarker = "…[truncated]\n"

// Options size a Sink.
type Options struct {
	Buffer  int // bytes held for the writer goroutine; lines that do not fit are dropped
	MaxLine int // a longer line is cut and ends with "…[truncated]"; at least len(truncMarker)
}

// Stats are a Sink's counts since New.
type Stats struct {
	Written   uint64 // lines handed to the writer
	Dropped   uint64 // lines dropped: the buffer was full (the writer is slow or blocked)
	Failed    uint64 // writes that failed (EPIPE on a closed pipe, EIO, ...); their lines are lost
	Truncated uint64 // lines cut at MaxLine
}

// Sink is an io.Writer for a logger (one Write per line, as log/slog
// does). Write copies the line into a buffer of fixed size and returns at
// once; a goroutine writes the buffer to the underlying writer. A line
// that does not fit is dropped and counted, a failed write is counted and
// its bytes are lost: a log line can never stop or block the process,
// whatever happens to stderr (a closed pipe, a full one, a stopped
// terminal). Safe for concurrent use; steady state does not allocate.
type Sink struct {
	w       io.Writer
	maxLine int

	mu      sync.Mutex
	pending []byte // lines waiting for the writer, capacity Buffer
	spare   []byte // the writer's buffer
	closed  bool
	wake    chan struct{}
	done    chan struct{}

	written, dropped, failed, truncated atomic.Uint64
}

// New returns a Sink writing to w and starts its writer goroutine.
func New(w io.Writer, o Options) *Sink {
	o.MaxLine = max(o.MaxLine, len(truncMarker))
	o.Buffer = max(o.Buffer, o.MaxLine)
	s := &Sink{w: w, maxLine: o.MaxLine,
		pending: make([]byte, 0, o.Buffer), spare: make([]byte, 0, o.Buffer),
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	go s.run()
	return s
}

// Write queues p (one line) and reports success whatever becomes of it.
func (s *Sink) Write(p []byte) (int, error) {
	n := len(p)
	cut := n > s.maxLine
	if cut {
		p = p[:s.maxLine-len(truncMarker)]
	}
	s.mu.Lock()
	if s.closed || len(s.pending)+len(p)+len(truncMarker) > cap(s.pending) {
		s.mu.Unlock()
		s.dropped.Add(1)
		return n, nil
	}
	s.pending = append(s.pending, p...)
	if cut {
		s.pending = append(s.pending, truncMarker...)
	}
	s.mu.Unlock()
	if cut {
		s.truncated.Add(1)
	}
	s.written.Add(1)
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return n, nil
}

func (s *Sink) run() {
	defer close(s.done)
	for {
		s.mu.Lock()
		s.pending, s.spare = s.spare[:0], s.pending
		closed := s.closed
		s.mu.Unlock()
		if len(s.spare) > 0 {
			if _, err := s.w.Write(s.spare); err != nil {
				s.failed.Add(1)
			}
			continue
		}
		if closed {
			return
		}
		<-s.wake
	}
}

// Close stops accepting lines and waits up to timeout for the writer to
// write those queued. It returns false if the writer did not finish (it is
// blocked in the underlying writer; it is left behind).
func (s *Sink) Close(timeout time.Duration) bool {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-s.done:
		return true
	case <-t.C:
		return false
	}
}

// Stats returns the counts.
func (s *Sink) Stats() Stats {
	return Stats{Written: s.written.Load(), Dropped: s.dropped.Load(), Failed: s.failed.Load(), Truncated: s.truncated.Load()}
}
