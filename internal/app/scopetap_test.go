package app

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/configs"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/config"
)

// TestScopeLeavesTheSessionToClients runs the scope beside a network
// client: the client holds the datasource's one session from start to
// end, receiving every update, while the scope shows the stream through
// the tap.
func TestScopeLeavesTheSessionToClients(t *testing.T) {
	a, ms := startExample(t, "burst.toml", func(text string) string {
		return httpAddress.ReplaceAllString(text, "HTTPAddress = \"\"\nScopeAddress = \"127.0.0.1:0\"")
	})
	var us *udpstreamer.Streamer
	for _, s := range a.sources {
		us, _ = s.ds.(*udpstreamer.Streamer)
	}
	c, err := client.Dial("127.0.0.1:"+strconv.Itoa(int(us.LocalAddr().Port())), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	var u client.Update
	lost := uint64(0)
	for range 200 {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if err := c.Next(&u); err != nil {
			t.Fatal(err)
		}
		lost += uint64(u.Lost)
	}
	var st struct {
		Status   struct{ State string }
		Counters struct{ Updates uint64 }
	}
	for deadline := time.Now().Add(10 * time.Second); st.Status.State != "receiving" || st.Counters.Updates < 100; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the scope is %+v", st)
		}
		json.Unmarshal([]byte(httpGet(t, "http://"+a.ScopeAddr()+"/status.json")), &st)
	}
	status := us.Status()
	connects := ms.GetOrCreateCounter(`streamerd_udpstreamer_connects_total{datasource="` + status.Name + `"}`).Get()
	client, _ := netip.ParseAddrPort(status.Client)
	if !status.Connected || client.Port() != c.LocalAddr().Port() || connects != 1 || lost != 0 {
		t.Errorf("session %+v, connects %d, lost %d", status, connects, lost)
	}
}

// httpAddress matches the HTTPAddress line of an example configuration.
var httpAddress = regexp.MustCompile(`HTTPAddress = "127\.0\.0\.1:[0-9]+"`)

// startExample builds and starts the example configuration name, edited by
// edit, on a free UDPStreamer port and a free HTTP port; the test stops it.
func startExample(t *testing.T, name string, edit func(string) string) (*App, *metrics.Set) {
	t.Helper()
	data, _ := configs.FS.ReadFile(name)
	text := string(data)
	if edit != nil {
		text = edit(text)
	}
	text = httpAddress.ReplaceAllString(text, `HTTPAddress = "127.0.0.1:0"`)
	text = strings.ReplaceAll(text, "Port = 44500", "Port = "+strconv.Itoa(freePort(t)))
	f, err := config.Parse(name, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	ms := metrics.NewSet()
	a, err := Build(f, ms, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Stop() })
	return a, ms
}
