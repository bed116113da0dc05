package netthread

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

// TestSetBuffersReadsBack sets small buffers, which no cap refuses, and
// reads back what was set; then asks for more than any default cap and
// checks the result is reported as it is (capped, or forced when
// privileged).
func TestSetBuffersReadsBack(t *testing.T) {
	conn := testenv.Loopback(t)
	b, err := SetBuffers(conn, 64<<10, 32<<10)
	if err != nil {
		t.Fatal(err)
	}
	if b.SendGot < 64<<10 || b.RecvGot < 32<<10 || b.sendCapped() || b.recvCapped() {
		t.Errorf("small buffers: %+v", b)
	}
	b, err = SetBuffers(conn, 64<<20, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b.forced != !b.sendCapped() || b.recvWant != 0 || b.RecvGot <= 0 {
		t.Errorf("large send buffer: %+v", b)
	}
	t.Logf("64 MiB asked: %+v", b)
	// A request beyond a C int gets the most the kernel gives, not the
	// minimum a wrapped value would.
	huge, err := SetBuffers(conn, 1<<40, 0)
	if err != nil {
		t.Fatal(err)
	}
	if huge.SendGot < b.SendGot || huge.sendWant != 1<<40 || !huge.sendCapped() {
		t.Errorf("1 TiB asked: %+v; fewer than the %d bytes of 64 MiB asked, or not reported as asked and capped", huge, b.SendGot)
	}
}

func TestBuffersLog(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, nil))
	Buffers{sendWant: 4 << 20, SendGot: 212992, recvWant: 1 << 20, RecvGot: 212992}.Log(log, "server", 65536)
	if s := out.String(); strings.Count(s, "\n") != 2 || !strings.Contains(s, "granted smaller") {
		t.Errorf("capped:\n%s", s)
	}
	out.Reset()
	Buffers{sendWant: 4 << 20, SendGot: 212992}.Log(log, "server", 1<<20)
	if s := out.String(); !strings.Contains(s, "cannot hold one update") || !strings.Contains(s, "at least 1048576") {
		t.Errorf("update too big:\n%s", s)
	}
	out.Reset()
	Buffers{sendWant: 4 << 20, SendGot: 4 << 20, forced: true}.Log(log, "server", 65536)
	if s := out.String(); strings.Count(s, "\n") != 1 || strings.Contains(s, "WARN") {
		t.Errorf("granted:\n%s", s)
	}
}
