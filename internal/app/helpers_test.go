package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/configs"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/config"
	"github.com/streamerd/streamerd/internal/testenv"
)

// exampleFile parses the example configuration name with free ports, so
// tests can run beside a streamerd on the defaults: HTTP on a free
// loopback port (or httpLine in place of the HTTPAddress line, as
// testenv.FreeHTTP takes it) and the UDPStreamer port 44500 on a free one.
func exampleFile(t *testing.T, name string, httpLine ...string) *config.File {
	t.Helper()
	data, err := configs.FS.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	text := testenv.FreeHTTP(string(data), httpLine...)
	text = strings.ReplaceAll(text, "Port = 44500", "Port = "+strconv.Itoa(testenv.FreeUDPPort(t)))
	return parseConfig(t, name, text)
}

// parseConfig parses the configuration text, named name in errors.
func parseConfig(t *testing.T, name, text string) *config.File {
	t.Helper()
	f, err := config.Parse(name, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// startFile builds and starts the application of f, with its metrics in
// a new set and its log discarded; it is stopped when t ends.
func startFile(t *testing.T, f *config.File) (*App, *metrics.Set) {
	t.Helper()
	return startFileLog(t, f, slog.New(slog.DiscardHandler))
}

// startFileLog is startFile with the application's log going to log.
func startFileLog(t *testing.T, f *config.File, log *slog.Logger) (*App, *metrics.Set) {
	t.Helper()
	ms := metrics.NewSet()
	a, err := Build(f, ms, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Stop() })
	return a, ms
}

// readTestdata returns the text of testdata/name.
func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// connectClient connects a Go client to a's UDPStreamer; it is closed when
// t ends.
func connectClient(t *testing.T, a *App) (*client.Client, *udpstreamer.Streamer) {
	t.Helper()
	var us *udpstreamer.Streamer
	for _, s := range a.sources {
		if u, ok := s.ds.(*udpstreamer.Streamer); ok {
			us = u
		}
	}
	c, err := client.Dial("127.0.0.1:"+strconv.Itoa(int(us.LocalAddr().Port())), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c, us
}

// waitScope polls the status of the scope at addr until it is receiving
// and has counted at least updates updates.
func waitScope(t *testing.T, addr string, updates uint64) {
	t.Helper()
	var st struct {
		Status   struct{ State string }
		Counters struct{ Updates uint64 }
	}
	for deadline := time.Now().Add(15 * time.Second); st.Status.State != "receiving" || st.Counters.Updates < updates; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the scope is %+v", st)
		}
		_, body := testenv.HTTPGet(t, "http://"+addr+"/status.json")
		json.Unmarshal([]byte(body), &st)
	}
}
