package app

import (
	"net/netip"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
)

// TestScopeLeavesTheSessionToClients runs the scope beside a network
// client: the client holds the datasource's one session from start to
// end, receiving every update, while the scope shows the stream through
// the tap.
func TestScopeLeavesTheSessionToClients(t *testing.T) {
	a, ms := startFile(t, exampleFile(t, "burst.toml", scopeNoHTTP))
	c, us := connectClient(t, a)
	var u client.Update
	lost := uint64(0)
	for range 200 {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if err := c.Next(&u); err != nil {
			t.Fatal(err)
		}
		lost += uint64(u.Lost)
	}
	waitScope(t, a.ScopeAddr(), 100)
	connects := ms.GetOrCreateCounter(`streamerd_udpstreamer_connects_total{datasource="` + us.Name() + `"}`).Get()
	if client := sessionClient(us); !client.IsValid() || connects != 1 || lost != 0 {
		t.Errorf("session of %v, connects %d, lost %d", client, connects, lost)
	}
}

// sessionClient returns the client holding s's session (its Internals).
func sessionClient(s *udpstreamer.Streamer) netip.AddrPort {
	return s.Internals().(interface{ Client() netip.AddrPort }).Client()
}
