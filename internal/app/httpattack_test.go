package app

import (
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
)

// startHTTPAppLog is startHTTPApp with the application's log in the
// returned buffer.
func startHTTPAppLog(t *testing.T, addr, extra string) (*httpApp, *testenv.Buffer) {
	t.Helper()
	var logs testenv.Buffer
	a, ms := startFileLog(t, httpConfig(t, addr, extra), slog.New(slog.NewTextHandler(&logs, nil)))
	return &httpApp{App: a, base: "http://" + a.HTTPAddr(), ms: ms}, &logs
}

// slowHeaderFlood is the lock-out attack: 70 sockets, each sending only a
// request line and reconnecting when cut off, more than the connection
// cap.
const (
	floodSockets = 70
	floodStart   = "GET / HTTP/1.1\r\n"
)

// TestHTTPSlowHeaderFloodLocksNoOneOut: while 70 sockets hold connections
// open with an unfinished request and reconnect when cut off, every
// /status probe is answered, from another address and from the flood's
// own; the bounds that bit are logged in one line naming the address.
func TestHTTPSlowHeaderFloodLocksNoOneOut(t *testing.T) {
	h, logs := startHTTPAppLog(t, "127.0.0.1:0", "")
	t0 := time.Now()
	for _, tc := range []struct {
		name, flood string
		probes      int
	}{
		{"from another address", "127.0.0.2", 20},
		{"from the same address", "127.0.0.1", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := testenv.StartSlowHeaders(t, strings.TrimPrefix(h.base, "http://"), tc.flood, floodSockets, floodStart)
			testenv.Eventually(t, "the flood to hold its connections", time.Minute, func() bool { return f.Connects.Load() >= floodSockets })
			probe := testenv.ProbeClient("127.0.0.1")
			start := time.Now()
			for i := range tc.probes {
				if err := testenv.Probe(probe, h.base+"/status"); err != nil {
					t.Fatalf("probe %d of %d during the flood (%d connections made, %d cut): %v", i+1, tc.probes, f.Connects.Load(), f.Cut.Load(), err)
				}
			}
			t.Logf("%d probes answered, %v each on average; the flood made %d connections, %d cut by the server",
				tc.probes, time.Since(start)/time.Duration(tc.probes), f.Connects.Load(), f.Cut.Load())
		})
	}
	lines := strings.Count(logs.String(), "connection bounds reached")
	if limit := 1 + int(time.Since(t0)/(10*time.Second)); lines < 1 || lines > limit || !strings.Contains(logs.String(), "client=127.0.0.2") {
		t.Errorf("%d log lines about the bounds (at most %d), want one naming 127.0.0.2:\n%s", lines, limit, logs.String())
	}
}

// request is one request of a table test: method, path, headers (Host
// sets the Host header), body, and what the answer must be.
type request struct {
	name, method, path string
	header             map[string]string
	body               string
	code               int
	want               string
}

// send makes r and checks the answer.
func (h *httpApp) send(t *testing.T, r request) {
	t.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	var header []string
	for k, v := range r.header {
		header = append(header, k, v)
	}
	code, b := testenv.HTTPDo(t, nil, r.method, h.base+r.path, body, header...)
	if code != r.code || !strings.Contains(b, r.want) {
		t.Errorf("%s: %s %s: %d %q, want %d %q", r.name, r.method, r.path, code, b, r.code, r.want)
	}
}

const forceSetpoint = "/force?signal=Streamer.Setpoint&value=1"

// A page of another site makes the operator's browser send simple POSTs
// (no preflight): the control endpoints refuse them, whatever the address
// and token; a request of the same origin and one from a client that is
// not a browser are served.
func TestHTTPCrossOriginControlRefused(t *testing.T) {
	const tok = "s3cret-token-0123456789"
	for _, tc := range []struct {
		name, addr, extra, auth string
	}{
		{"loopback", "127.0.0.1:0", "", ""},
		{"token", "127.0.0.1:0", "HTTPTokenFile = " + strconv.Quote(writeToken(t, tok)), "Bearer " + tok},
		{"insecure control", "0.0.0.0:0", "HTTPInsecureControl = true", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := startHTTPApp(t, tc.addr, tc.extra)
			with := func(kv ...string) map[string]string {
				m := map[string]string{}
				if tc.auth != "" {
					m["Authorization"] = tc.auth
				}
				for i := 0; i < len(kv); i += 2 {
					m[kv[i]] = kv[i+1]
				}
				return m
			}
			self := strings.Replace(h.base, "0.0.0.0", "127.0.0.1", 1)
			for _, r := range []request{
				{name: "evil origin", method: "POST", path: forceSetpoint, header: with("Origin", "http://evil.example"), code: 403, want: `cross-origin request from "http://evil.example"`},
				{name: "evil origin, form body", method: "POST", path: "/force", header: with("Origin", "http://evil.example", "Content-Type", "application/x-www-form-urlencoded"), body: "signal=Streamer.Setpoint&value=1", code: 403, want: "cross-origin"},
				{name: "cross-site fetch", method: "POST", path: forceSetpoint, header: with("Sec-Fetch-Site", "cross-site"), code: 403, want: `Sec-Fetch-Site: "cross-site"`},
				{name: "the scope's port", method: "POST", path: "/release?signal=Streamer.Setpoint", header: with("Sec-Fetch-Site", "same-site", "Origin", "http://localhost:8090"), code: 403, want: "cross-origin"},
				{name: "null origin", method: "POST", path: "/degrade?datasource=Streamer&key=freeze&value=1", header: with("Origin", "null"), code: 403, want: "cross-origin"},
			} {
				h.send(t, r)
			}
			if f := h.Status().Forces; len(f) != 0 {
				t.Fatalf("forced by a cross-origin request: %+v", f)
			}
			for _, r := range []request{
				{name: "same origin", method: "POST", path: forceSetpoint, header: with("Origin", self, "Sec-Fetch-Site", "same-origin"), code: 200, want: "forced"},
				{name: "not a browser", method: "POST", path: "/release?signal=Streamer.Setpoint", header: with(), code: 200, want: "released"},
				{name: "typed in the address bar", method: "POST", path: forceSetpoint, header: with("Sec-Fetch-Site", "none"), code: 200, want: "forced"},
				{name: "a read from another site", method: "GET", path: "/status", header: with("Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"), code: 200},
			} {
				h.send(t, r)
			}
			if n := h.counter("cross_origin"); n != 5 {
				t.Errorf("cross_origin = %d", n)
			}
		})
	}
}

// A page whose name resolves to the daemon (DNS rebinding) reaches it
// under its own name: the daemon answers only its own names.
func TestHTTPHostChecked(t *testing.T) {
	h := startHTTPApp(t, "127.0.0.1:0", `HTTPAllowedHosts = ["streamerd.example.org"]`)
	_, port, _ := net.SplitHostPort(h.HTTPAddr())
	for _, r := range []request{
		{name: "rebinding read", method: "GET", path: "/status", header: map[string]string{"Host": "evil.example:" + port}, code: 421, want: `does not answer to the name "evil.example"`},
		{name: "rebinding page's own POST", method: "POST", path: forceSetpoint,
			header: map[string]string{"Host": "evil.example:" + port, "Origin": "http://evil.example:" + port, "Sec-Fetch-Site": "same-origin"}, code: 421, want: "App.HTTPAllowedHosts"},
		{name: "metrics", method: "GET", path: "/metrics", header: map[string]string{"Host": "evil.example"}, code: 421},
		{name: "unknown path", method: "GET", path: "/nothing", header: map[string]string{"Host": "evil.example"}, code: 421},
	} {
		h.send(t, r)
	}
	if f := h.Status().Forces; len(f) != 0 {
		t.Fatalf("forced through a foreign host name: %+v", f)
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LocalHost.", "[::1]:" + port, "10.1.2.3:" + port, "127.0.0.1",
		"streamerd.example.org:" + port, "StreamerD.Example.Org."} {
		h.send(t, request{name: host, method: "GET", path: "/status", header: map[string]string{"Host": host}, code: 200})
	}
	if n := h.counter("host"); n != 4 {
		t.Errorf("host = %d", n)
	}
}

// A parameter given twice (in the query, the body, or both) is refused:
// which one to use would be a guess.
func TestHTTPRepeatedParameter(t *testing.T) {
	h := startHTTPApp(t, "127.0.0.1:0", "")
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	for _, r := range []request{
		{name: "signal twice", method: "POST", path: "/force?signal=Streamer.Setpoint&signal=Streamer.V&value=1", code: 400, want: `parameter "signal" given 2 times`},
		{name: "value twice", method: "POST", path: "/force?signal=Streamer.Setpoint&value=1&value=2", code: 400, want: `parameter "value" given 2 times`},
		{name: "query and body", method: "POST", path: "/force?signal=Streamer.Setpoint", header: form, body: "signal=Streamer.V&value=1", code: 400, want: `parameter "signal" given 2 times`},
		{name: "release", method: "POST", path: "/release?signal=Streamer.V&signal=Streamer.V", code: 400, want: "given 2 times"},
		{name: "degrade", method: "POST", path: "/degrade?datasource=Streamer&key=a&key=b&value=1", code: 400, want: `parameter "key" given 2 times`},
	} {
		h.send(t, r)
	}
	if f := h.Status().Forces; len(f) != 0 {
		t.Fatalf("forced: %+v", f)
	}
}

// A control request's body is a URL-encoded form or nothing; anything
// else is refused rather than ignored.
func TestHTTPControlBodyIsAForm(t *testing.T) {
	h := startHTTPApp(t, "127.0.0.1:0", "")
	for _, r := range []request{
		{name: "text", method: "POST", path: "/force", header: map[string]string{"Content-Type": "text/plain"}, body: "signal=Streamer.Setpoint&value=1", code: 415, want: `Content-Type application/x-www-form-urlencoded, got "text/plain"`},
		{name: "multipart", method: "POST", path: forceSetpoint, header: map[string]string{"Content-Type": "multipart/form-data; boundary=x"}, body: "--x--", code: 415, want: "unsupported body"},
		{name: "form with charset", method: "POST", path: "/force", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}, body: "signal=Streamer.Setpoint&value=3", code: 200, want: "forced Streamer.Setpoint = 3"},
		{name: "no body", method: "POST", path: forceSetpoint, code: 200, want: "forced"},
	} {
		h.send(t, r)
	}
}
