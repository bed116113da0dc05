package bench

import (
	"io"
	"log/slog"
	"testing"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource/udpstreamer"
)

// startStreamer builds and allocates a UDPStreamer on cfg, its metrics in
// ms, and starts it (socket and network thread); the caller stops it. The
// error is the start's, so that a caller may skip on EPERM.
func startStreamer(tb testing.TB, cfg udpstreamer.Config, ms *metrics.Set) (*udpstreamer.Streamer, error) {
	tb.Helper()
	s, err := udpstreamer.New(cfg, ms, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.AllocateMemory(); err != nil {
		tb.Fatal(err)
	}
	return s, s.PrepareNextState()
}
