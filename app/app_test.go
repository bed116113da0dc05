package app

import (
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"streamerd/config"
	"streamerd/configs"
)

// TestStopLeavesNoGoroutine builds and runs every example configuration
// briefly and checks that Stop returns every goroutine it started: the RT
// threads, the network threads, the receive goroutines, HTTP and the
// metrics publisher.
func TestStopLeavesNoGoroutine(t *testing.T) {
	entries, err := configs.FS.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			data, _ := configs.FS.ReadFile(e.Name())
			// Free ports and a loopback HTTP port, so tests can run beside
			// a streamerd on the defaults.
			text := strings.ReplaceAll(string(data), `"127.0.0.1:9100"`, `"127.0.0.1:0"`)
			text = strings.ReplaceAll(text, "Port = 44500", "Port = "+strconv.Itoa(freePort(t)))
			f, err := config.Parse(e.Name(), []byte(text))
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
			time.Sleep(100 * time.Millisecond)
			t0 := time.Now()
			if err := a.Stop(); err != nil {
				t.Fatal(err)
			}
			t.Logf("Stop took %v", time.Since(t0))
			deadline := time.Now().Add(2 * time.Second)
			for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > before {
				buf := make([]byte, 1<<16)
				t.Fatalf("%d goroutines before, %d after Stop:\n%s", before, n, buf[:runtime.Stack(buf, true)])
			}
		})
	}
}
