package udpstreamer

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/internal/dstest"
)

// startLogged starts a Streamer on loopback whose log goes to the returned
// buffer.
func startLogged(t *testing.T, cfg Config) (*Streamer, *dstest.SyncBuffer) {
	t.Helper()
	out := new(dstest.SyncBuffer)
	if cfg.Name == "" {
		cfg.Name = "S"
	}
	cfg.Address = "127.0.0.1"
	s, err := New(cfg, metrics.NewSet(), slog.New(slog.NewTextHandler(out, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AllocateMemory(); err != nil {
		t.Fatal(err)
	}
	if err := s.PrepareNextState(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	return s, out
}

// TestSocketBuffersReadBackAndLogged checks the buffers the kernel granted
// reach /status and one log line, with a warning only if one update does
// not fit.
func TestSocketBuffersReadBackAndLogged(t *testing.T) {
	s, out := startLogged(t, patternCfg())
	st := s.Status()
	if st.SendBuffer <= 0 || st.ReceiveBuffer <= 0 {
		t.Fatalf("status: send %d, receive %d bytes", st.SendBuffer, st.ReceiveBuffer)
	}
	log := out.String()
	if strings.Count(log, "msg=\"socket buffers\"") != 1 {
		t.Errorf("want one socket buffers line:\n%s", log)
	}
	fits := st.SendBuffer >= s.dataLayout.WireSize()
	if warned := strings.Contains(log, "cannot hold one update"); warned == fits {
		t.Errorf("send buffer %d, update %d bytes, warned %v:\n%s", st.SendBuffer, s.dataLayout.WireSize(), warned, log)
	}
	t.Logf("send %d, receive %d bytes", st.SendBuffer, st.ReceiveBuffer)
}
