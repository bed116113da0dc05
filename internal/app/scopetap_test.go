package app

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/netip"
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
	data, _ := configs.FS.ReadFile("burst.toml")
	text := strings.Replace(string(data), `HTTPAddress = "127.0.0.1:9100"`, "HTTPAddress = \"\"\nScopeAddress = \"127.0.0.1:0\"", 1)
	text = strings.ReplaceAll(text, "Port = 44500", "Port = "+strconv.Itoa(freePort(t)))
	f, err := config.Parse("burst.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	ms := metrics.NewSet()
	a, err := Build(f, ms, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var us *udpstreamer.Streamer
	for _, s := range a.sources {
		us, _ = s.ds.(*udpstreamer.Streamer)
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
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
