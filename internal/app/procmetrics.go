package app

import (
	"io"
	"sync"
	"time"

	"github.com/VictoriaMetrics/metrics"
)

// procMetricsEvery is how often /metrics renders the Go runtime and
// process metrics anew; scrapes in between get the same text.
const procMetricsEvery = time.Second

// procMetrics renders the runtime and process metrics at most once per
// procMetricsEvery. metrics.WriteProcessMetrics calls
// runtime.ReadMemStats, which stops the world, the RT goroutine with it;
// on a loaded machine a stop can last as long as the OS takes to run every
// thread holding a P. Cached, a flood of scrapes costs the RT loop at most
// one stop per second.
type procMetrics struct {
	mu   sync.Mutex
	text []byte
	at   time.Time
}

func (p *procMetrics) write(w io.Writer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.text == nil || time.Since(p.at) >= procMetricsEvery {
		buf := writerTo{p.text[:0]}
		metrics.WriteProcessMetrics(&buf)
		p.text, p.at = buf.b, time.Now()
	}
	w.Write(p.text)
}

// writerTo appends to b.
type writerTo struct{ b []byte }

func (w *writerTo) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
