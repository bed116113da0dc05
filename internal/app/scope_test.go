package app

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/configs"
	"github.com/streamerd/streamerd/internal/config"
	"github.com/streamerd/streamerd/internal/testenv"
)

// TestScopeAddress: with ScopeAddress the daemon serves the scope of its
// UDPStreamer, which receives the datasource's updates, and Stop ends it.
func TestScopeAddress(t *testing.T) {
	data, _ := configs.FS.ReadFile("burst.toml")
	text := testenv.FreeHTTP(string(data), "HTTPAddress = \"\"\nScopeAddress = \"127.0.0.1:0\"")
	text = strings.ReplaceAll(text, "Port = 44500", "Port = "+strconv.Itoa(freePort(t)))
	f, err := config.Parse("burst.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	a, err := Build(f, metrics.NewSet(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	base := "http://" + a.ScopeAddr() + "/"
	if body := httpGet(t, base); !strings.Contains(body, "streamerd scope") {
		t.Fatalf("GET /: %.200s", body)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		var st struct {
			Status   struct{ State string }
			Counters struct{ Updates uint64 }
		}
		json.Unmarshal([]byte(httpGet(t, base+"status.json")), &st)
		if st.Status.State == "receiving" && st.Counters.Updates > 10 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the scope is %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	if a.ScopeAddr() != "" {
		t.Error("the scope outlived Stop")
	}
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Stop, %d before Build", n, before)
	}
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
