package udpstreamer

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

// startLogged starts a Streamer on loopback whose log goes to the returned
// buffer.
func startLogged(t *testing.T, cfg Config) (*Streamer, *testenv.Buffer) {
	t.Helper()
	out := new(testenv.Buffer)
	return startWith(t, cfg, slog.New(slog.NewTextHandler(out, nil))), out
}

// TestSocketBuffersReadBackAndLogged checks the buffers the kernel granted
// reach /status and one log line, with a warning only if one update does
// not fit.
func TestSocketBuffersReadBackAndLogged(t *testing.T) {
	s, out := startLogged(t, patternCfg())
	st := s.snapshot()
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
