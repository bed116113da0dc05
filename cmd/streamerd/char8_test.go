package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
)

// TestDaemonSendsText runs configs/flatudp_text.toml: the State signal
// leaves as "running" and 9 NULs between Counter and Level, an operator
// force replaces the text on the wire, /status shows it, and a text
// without room for its NUL is refused.
func TestDaemonSendsText(t *testing.T) {
	rx := testenv.Loopback(t)
	data, err := os.ReadFile(filepath.Join("..", "..", "configs", "flatudp_text.toml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(testenv.FreeHTTP(string(data)), "Port = 44489", fmt.Sprintf("Port = %d", rx.LocalAddr().(*net.UDPAddr).Port), 1)
	d := startDaemon(t, text)
	buf := make([]byte, 64)
	state := func() []byte {
		t.Helper()
		rx.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, _, err := rx.ReadFromUDPAddrPort(buf)
		if err != nil {
			t.Fatal(err)
		}
		if n != 24 {
			t.Fatalf("a datagram of %d bytes, want 24", n)
		}
		return buf[4:20]
	}
	if s := state(); !bytes.Equal(s, []byte("running\x00\x00\x00\x00\x00\x00\x00\x00\x00")) {
		t.Fatalf("State % x", s)
	}
	if code, body := d.post(t, "/force?signal=Flat.State&value=paused"); code != 200 {
		t.Fatalf("force: %d %s", code, body)
	}
	seen := false
	for i := 0; i < 200 && !seen; i++ {
		seen = bytes.Equal(state(), []byte("paused\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	}
	if !seen {
		t.Error("the forced text never reached the receiver")
	}
	var st struct {
		Forces []struct{ Signal, Value string }
	}
	if err := json.Unmarshal([]byte(d.get(t, "/status")), &st); err != nil || len(st.Forces) != 1 || st.Forces[0].Value != "paused" {
		t.Errorf("status forces %+v (%v)", st.Forces, err)
	}
	if code, body := d.post(t, "/force?signal=Flat.State&value=0123456789abcdef"); code != 400 || !strings.Contains(body, "at most 15 bytes") {
		t.Errorf("16 bytes into char8[16]: %d %s", code, body)
	}
	d.stop(t)
}
