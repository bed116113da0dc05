package scope

import (
	"io"
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
)

// TestScopeConnectionCap: 300 connections from one address that send
// nothing hold at most its share of the server (a goroutine each); the
// ones beyond the wait queue are closed at once.
func TestScopeConnectionCap(t *testing.T) {
	s := startServer(t, newFakeSource(fakeSigs...), Options{})
	base := runtime.NumGoroutine()
	const n = 300
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}
	var closed atomic.Int64
	for range n {
		c, err := d.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		go func() {
			io.Copy(io.Discard, c)
			closed.Add(1)
		}()
	}
	// Either the server has taken every connection (a goroutine each), or
	// it has closed those beyond its bounds.
	testenv.Eventually(t, "the server to take the connections", time.Minute, func() bool {
		return runtime.NumGoroutine() >= base+2*n || closed.Load() >= n-100
	})
	// The test's readers of the connections still open are not the server's.
	server := func() int { return runtime.NumGoroutine() - base - (n - int(closed.Load())) }
	if g := server(); g > 100 {
		t.Fatalf("%d connections from one address hold %d goroutines of the server (%d closed)", n, g, closed.Load())
	}
	t.Logf("%d closed at once; the server holds the others with %d goroutines", closed.Load(), server())
}
