package app

import (
	"net/http"
	"runtime"
	"strconv"
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

// TestScopeUnderTheToken: with HTTPTokenFile the scope asks for the token
// like the HTTP endpoint: its page, files, status and WebSocket answer 401
// without it; and it answers only the names it serves.
func TestScopeUnderTheToken(t *testing.T) {
	const tok = "s3cret-token-0123456789"
	f := exampleFile(t, "burst.toml", scopeNoHTTP+"\nHTTPTokenFile = "+strconv.Quote(writeToken(t, tok)))
	a, _ := startFile(t, f)
	base := "http://" + a.ScopeAddr() + "/"
	get := func(path, auth, host string) int {
		req, _ := http.NewRequest("GET", base+path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, p := range []string{"", "status.json", "static/scope.js", "ws"} {
		if code := get(p, "", ""); code != http.StatusUnauthorized {
			t.Errorf("/%s without the token: %d", p, code)
		}
	}
	if code := get("status.json", "Bearer "+tok, ""); code != 200 {
		t.Errorf("status.json with the token: %d", code)
	}
	if code := get("status.json", "Bearer "+tok, "evil.example"); code != http.StatusMisdirectedRequest {
		t.Errorf("status.json as evil.example: %d", code)
	}
}
