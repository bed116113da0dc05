package app

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
)

// scopeNoHTTP is the HTTPAddress line of a configuration whose scope
// serves without the HTTP endpoint.
const scopeNoHTTP = "HTTPAddress = \"\"\nScopeAddress = \"127.0.0.1:0\""

// TestScopeAddress: with ScopeAddress the daemon serves the scope of its
// UDPStreamer, which receives the datasource's updates, and Stop ends it.
func TestScopeAddress(t *testing.T) {
	f := exampleFile(t, "burst.toml", scopeNoHTTP)
	before := runtime.NumGoroutine()
	a, _ := startFile(t, f)
	if _, body := testenv.HTTPGet(t, "http://"+a.ScopeAddr()+"/"); !strings.Contains(body, "streamerd scope") {
		t.Fatalf("GET /: %.200s", body)
	}
	waitScope(t, a.ScopeAddr(), 11)
	if err := a.Stop(); err != nil {
		t.Fatal(err)
	}
	if a.ScopeAddr() != "" {
		t.Error("the scope outlived Stop")
	}
	for deadline := time.Now().Add(15 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Stop, %d before Build", n, before)
	}
}
