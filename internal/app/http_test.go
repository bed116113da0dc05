package app

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	vmetrics "github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/internal/config"
	"github.com/streamerd/streamerd/internal/httpguard"
	"github.com/streamerd/streamerd/internal/testenv"
)

// httpApp is a started application of testdata/http.toml.
type httpApp struct {
	*App
	base string // http://host:port
	ms   *vmetrics.Set
}

// startHTTPApp starts testdata/http.toml with HTTP on addr and the extra
// lines appended to its [App] table.
func startHTTPApp(t *testing.T, addr, extra string) *httpApp {
	t.Helper()
	return startHTTP(t, httpConfig(t, addr, extra))
}

// httpConfig is testdata/http.toml with HTTP on addr and the extra lines
// appended to its [App] table.
func httpConfig(t *testing.T, addr, extra string) *config.File {
	t.Helper()
	text := strings.NewReplacer("%ADDR%", addr, "%PORT%", strconv.Itoa(testenv.FreeUDPPort(t)),
		"[App]\n", "[App]\n"+extra+"\n").Replace(readTestdata(t, "http.toml"))
	return parseConfig(t, "http.toml", text)
}

// startHTTP builds and starts the application of f, stopped when t ends.
func startHTTP(t *testing.T, f *config.File) *httpApp {
	t.Helper()
	a, ms := startFile(t, f)
	_, port, _ := net.SplitHostPort(a.HTTPAddr())
	return &httpApp{App: a, base: "http://127.0.0.1:" + port, ms: ms}
}

// setBounds changes the HTTP bounds for one test.
func setBounds(t *testing.T, change func(b *httpLimits)) {
	saved := httpBounds
	change(&httpBounds)
	t.Cleanup(func() { httpBounds = saved })
}

// do sends a request with an optional bearer token and returns the status
// and body.
func (h *httpApp) do(t *testing.T, method, path, token string, body io.Reader) (int, string) {
	t.Helper()
	var header []string
	if token != "" {
		header = append(header, "Authorization", token)
	}
	if body != nil {
		header = append(header, "Content-Type", "application/x-www-form-urlencoded")
	}
	return testenv.HTTPDo(t, nil, method, h.base+path, body, header...)
}

// reply is a request's query and the status it must get, with a body
// that holds want.
type reply struct {
	query string
	code  int
	want  string
}

// checkReplies POSTs path+query for each reply and checks the answer.
func (h *httpApp) checkReplies(t *testing.T, path string, replies []reply) {
	t.Helper()
	for _, r := range replies {
		code, body := h.do(t, "POST", path+r.query, "", nil)
		if code != r.code || !strings.Contains(body, r.want) {
			t.Errorf("%s: %d %q, want %d %q", r.query, code, body, r.code, r.want)
		}
	}
}

func (h *httpApp) counter(reason string) uint64 {
	return h.ms.GetOrCreateCounter(`streamerd_http_requests_refused_total{reason="` + reason + `"}`).Get()
}

// The reply states the value applied, base 10, and what the wire does to
// a value outside the quantisation range; /status says the same.
func TestHTTPForceRepliesWithTheValueApplied(t *testing.T) {
	h := startHTTPApp(t, "127.0.0.1:0", "")
	h.checkReplies(t, "/force?", []reply{
		{"signal=Streamer.Setpoint&value=010", 200, "forced Streamer.Setpoint = 10\n"},
		{"signal=Streamer.Counter&value=0x10", 400, "not a uint32"},
		{"signal=Streamer.Counter&value=1_0", 400, "not a uint32"},
		{"signal=Streamer.Arr&value=1.5", 200, "forced Streamer.Arr = 1.5 (all 4 elements)\n"},
		{"signal=Streamer.Arr&value=1,2,3,4", 200, "forced Streamer.Arr = 1,2,3,4\n"},
		{"signal=Streamer.Sub.Value&value=-7", 200, "forced Streamer.Sub.Value = -7\n"}, // a signal name may hold a dot
		{"signal=Streamer.Setpoint", 400, "force Streamer.Setpoint: no value: give value=V\n"},
		{"signal=Streamer.V&value=50", 200, "forced Streamer.V = 50\nnote: the value is outside the int16 quantisation range [-10, 10] and clamped on the wire: 50 arrives as 10\n"},
	})
	var st Status
	_, body := h.do(t, "GET", "/status", "", nil)
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(body, `\u003e`) || !strings.Contains(body, "->") {
		t.Errorf("/status escapes its step names' arrows (or has none): %s", body)
	}
	found := false
	for _, f := range st.Forces {
		if f.Signal == "Streamer.V" {
			found = f.Value == "50" && f.ClampedElements == 1 && strings.Contains(f.Note, "arrives as 10")
		}
	}
	if !found {
		t.Errorf("/status forces: %+v", st.Forces)
	}
}

// A 9 MB value, valid or not, is refused by size: it is neither echoed,
// nor logged, nor kept in the event ring.
func TestHTTPForceHugeValue(t *testing.T) {
	h := startHTTPApp(t, "127.0.0.1:0", "")
	huge := strings.Repeat("1,", 9<<19)
	code, body := h.do(t, "POST", "/force", "", strings.NewReader("signal=Streamer.Arr&value="+huge))
	if code != http.StatusRequestEntityTooLarge || len(body) > 200 {
		t.Errorf("9 MB body: %d %.200q", code, body)
	}
	if h.counter("body_too_large") != 1 {
		t.Errorf("body_too_large = %d", h.counter("body_too_large"))
	}
	// Within the body bound but over the signal's: refused, not echoed.
	long := strings.Repeat("1,", 1000)
	code, body = h.do(t, "POST", "/force", "", strings.NewReader("signal=Streamer.Arr&value="+long))
	if code != 400 || strings.Contains(body, "1,1,1,1,1") || !strings.Contains(body, "at most 168 for float32[4]") {
		t.Errorf("2 KB value: %d %q", code, body)
	}
	if ev := h.events.recent(); len(ev) != 0 {
		t.Errorf("events after refused forces: %+v", ev)
	}
	// A long signal name is quoted short in the error.
	code, body = h.do(t, "POST", "/force?signal=Streamer."+strings.Repeat("x", 4000)+"&value=1", "", nil)
	if code != 400 || len(body) > 200 || !strings.Contains(body, "…(4000 bytes)") {
		t.Errorf("4000-byte signal name: %d %q", code, body)
	}
}

func TestHTTPHeaderBound(t *testing.T) {
	h := startHTTPApp(t, "127.0.0.1:0", "")
	req, _ := http.NewRequest("GET", h.base+"/status", nil)
	req.Header.Set("X-Big", strings.Repeat("a", HTTPMaxHeaderBytes+8<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("16 KiB header: %d", resp.StatusCode)
	}
}

// A connection that stalls in its headers, in its body, or idles between
// requests is closed after its bound; without the bound it stays open.
func TestHTTPSlowConnectionsAreCut(t *testing.T) {
	setBounds(t, func(b *httpLimits) {
		b.readHeader, b.read, b.idle = 200*time.Millisecond, 300*time.Millisecond, 300*time.Millisecond
	})
	h := startHTTPApp(t, "127.0.0.1:0", "")
	addr := strings.TrimPrefix(h.base, "http://")
	for name, send := range map[string]string{
		"slow header": "GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a",
		"slow body":   "POST /force HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nsignal=",
		"idle":        "GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Write([]byte(send)); err != nil {
				t.Fatal(err)
			}
			// Far beyond the bound, far short of "forever".
			c.SetReadDeadline(time.Now().Add(20 * time.Second))
			_, err = io.Copy(io.Discard, c)
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("connection still open after 20 s")
			}
		})
	}
}

// A client that sends requests and never reads their responses is cut off
// once a response has waited the write timeout for room in the socket:
// here 3000 pipelined /status requests behind a 4 KiB receive buffer.
func TestHTTPSlowReaderIsCut(t *testing.T) {
	setBounds(t, func(b *httpLimits) { b.write = 300 * time.Millisecond })
	h := startHTTPApp(t, "127.0.0.1:0", "")
	const n = 3000
	if got := testenv.PipelineUnread(t, strings.TrimPrefix(h.base, "http://"), "GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", n); got >= n {
		t.Fatalf("all %d responses came: the write timeout never cut the connection", got)
	}
}

// Connections beyond the cap wait for a slot: one that frees, or one
// whose connection has waited EvictAfter for its request (the longest
// waiting is closed for the newcomer).
func TestHTTPConnectionCap(t *testing.T) {
	setBounds(t, func(b *httpLimits) {
		b.maxConns, b.maxPerClient, b.readHeader, b.evictAfter = 3, 3, time.Minute, time.Hour
	})
	// hold3 starts an app and opens three connections to it, which it serves.
	hold3 := func() (*httpApp, *httpguard.Listener, []net.Conn) {
		h := startHTTPApp(t, "127.0.0.1:0", "")
		lim := h.httpLn.(*httpguard.Listener)
		var held []net.Conn
		for range 3 {
			c, err := net.Dial("tcp", strings.TrimPrefix(h.base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			held = append(held, c)
		}
		testenv.Eventually(t, "three connections served", time.Minute, func() bool { return lim.Stats().Open == 3 })
		return h, lim, held
	}
	h, lim, held := hold3()
	probe := make(chan error, 1)
	go func() { probe <- testenv.Probe(testenv.ProbeClient("127.0.0.1"), h.base+"/status") }()
	testenv.Eventually(t, "the fourth queued", time.Minute, func() bool { return lim.Stats().Queued == 1 })
	held[0].Close()
	if err := testenv.Receive(t, probe, time.Minute, "the fourth served"); err != nil {
		t.Fatal(err)
	}

	// With EvictAfter, the connection that waited longest makes room.
	setBounds(t, func(b *httpLimits) { b.evictAfter = 50 * time.Millisecond })
	h, _, held = hold3()
	if err := testenv.Probe(testenv.ProbeClient("127.0.0.1"), h.base+"/status"); err != nil {
		t.Fatal(err)
	}
	held[0].SetReadDeadline(time.Now().Add(time.Minute))
	if n, err := held[0].Read(make([]byte, 1)); n != 0 || err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("the oldest waiting connection was not closed: %d %v", n, err)
	}
	if n := h.ms.GetOrCreateCounter("streamerd_http_connections_evicted_total").Get(); n != 1 {
		t.Errorf("evicted = %d", n)
	}
}

// Requests beyond the in-flight cap of their class get 503 at once; the
// other class is served.
func TestHTTPInFlightCap(t *testing.T) {
	h := startHTTPApp(t, "127.0.0.1:0", "")
	busy := h.guard.inFlight[classControl]
	for range cap(busy) {
		busy <- struct{}{}
	}
	code, _ := h.do(t, "POST", "/force?signal=Streamer.Setpoint&value=1", "", nil)
	if code != http.StatusServiceUnavailable || h.counter("busy") != 1 {
		t.Errorf("control request over the cap: %d, busy %d", code, h.counter("busy"))
	}
	if code, _ := h.do(t, "GET", "/status", "", nil); code != 200 {
		t.Errorf("read while control is full: %d", code)
	}
	for range cap(busy) {
		<-busy
	}
	if code, _ := h.do(t, "POST", "/force?signal=Streamer.Setpoint&value=1", "", nil); code != 200 {
		t.Errorf("control after the cap drained: %d", code)
	}
}

func writeToken(t *testing.T, token string) string {
	return testenv.WriteFile(t, "token", token, 0o600)
}

// With a token, every endpoint needs it; without one, a non-loopback
// listener refuses the control endpoints unless HTTPInsecureControl.
func TestHTTPToken(t *testing.T) {
	const tok = "s3cret-token-0123456789"
	h := startHTTPApp(t, "127.0.0.1:0", "HTTPTokenFile = "+strconv.Quote(writeToken(t, tok+"\n")))
	for _, tc := range []struct {
		method, path, auth string
		code               int
	}{
		{"GET", "/status", "", 401},
		{"GET", "/metrics", "", 401},
		{"POST", "/force?signal=Streamer.Setpoint&value=1", "", 401},
		{"GET", "/status", "Bearer wrong-token-0123456789", 401},
		{"GET", "/status", "Basic " + tok, 401},
		{"GET", "/status", "Bearer " + tok + "x", 401},
		{"GET", "/status", "Bearer " + tok, 200},
		{"GET", "/metrics", "bearer " + tok, 200},
		{"POST", "/force?signal=Streamer.Setpoint&value=1", "Bearer " + tok, 200},
	} {
		if code, body := h.do(t, tc.method, tc.path, tc.auth, nil); code != tc.code {
			t.Errorf("%s %s with %q: %d %s", tc.method, tc.path, tc.auth, code, body)
		}
	}
	if h.counter("unauthorized") != 6 {
		t.Errorf("unauthorized = %d", h.counter("unauthorized"))
	}
}

func TestHTTPTokenFileErrors(t *testing.T) {
	fifo := testenv.Mkfifo(t, filepath.Join(t.TempDir(), "fifo"))
	for path, want := range map[string]string{
		writeToken(t, "short\n"):                        "at least 16",
		writeToken(t, "has a space in the token\n"):     "printable ASCII without spaces",
		writeToken(t, strings.Repeat("x", 5000)):        "at most 4096",
		fifo:                                            "a named pipe",
		filepath.Join(t.TempDir(), "missing"):           "no such file",
		writeToken(t, "tab\tinside-the-token-12345678"): "printable ASCII",
	} {
		text := strings.NewReplacer("%ADDR%", "127.0.0.1:0", "%PORT%", "44999",
			"[App]\n", "[App]\nHTTPTokenFile = "+strconv.Quote(path)+"\n").Replace(readTestdata(t, "http.toml"))
		_, err := Build(parseConfig(t, "http.toml", text), vmetrics.NewSet(), slog.New(slog.DiscardHandler))
		if err == nil || !strings.Contains(err.Error(), want) || !regexp.MustCompile(`^http\.toml:\d+:1: App: HTTPTokenFile: `).MatchString(err.Error()) {
			t.Errorf("%s: %v, want %q", filepath.Base(path), err, want)
		}
	}
}

func TestHTTPControlOffTheLoopback(t *testing.T) {
	h := startHTTPApp(t, "0.0.0.0:0", "")
	if code, body := h.do(t, "POST", "/force?signal=Streamer.Setpoint&value=1", "", nil); code != 403 || !strings.Contains(body, "HTTPTokenFile") {
		t.Errorf("/force on 0.0.0.0 without a token: %d %s", code, body)
	}
	if code, _ := h.do(t, "GET", "/status", "", nil); code != 200 {
		t.Errorf("/status on 0.0.0.0: %d", code)
	}
	if h.counter("control_off") != 1 {
		t.Errorf("control_off = %d", h.counter("control_off"))
	}
	open := startHTTPApp(t, "0.0.0.0:0", "HTTPInsecureControl = true")
	if code, body := open.do(t, "POST", "/force?signal=Streamer.Setpoint&value=1", "", nil); code != 200 {
		t.Errorf("/force with HTTPInsecureControl: %d %s", code, body)
	}
}

// A form in the body is read like the query, within the body bound.
func TestHTTPFormBody(t *testing.T) {
	h := startHTTPApp(t, "127.0.0.1:0", "")
	form := url.Values{"signal": {"Streamer.Setpoint"}, "value": {"2.5"}}.Encode()
	if code, body := h.do(t, "POST", "/force", "", strings.NewReader(form)); code != 200 || body != "forced Streamer.Setpoint = 2.5\n" {
		t.Errorf("form body: %d %q", code, body)
	}
}

// A flood of scrapes stops the world (runtime.ReadMemStats, the RT
// goroutine with it) at most once per procMetricsEvery.
func TestHTTPMetricsFloodStopsTheWorldRarely(t *testing.T) {
	h := startHTTPApp(t, "127.0.0.1:0", "")
	stops := func() uint64 {
		s := []metrics.Sample{{Name: "/sched/pauses/total/other:seconds"}}
		metrics.Read(s)
		var n uint64
		for _, c := range s[0].Value.Float64Histogram().Counts {
			n += c
		}
		return n
	}
	before := stops()
	for range 20 { // what each scrape cost without the cache
		vmetrics.WriteProcessMetrics(io.Discard)
	}
	if n := stops() - before; n < 20 {
		t.Fatalf("20 direct renderings counted %d stops of the world: the probe does not see them", n)
	}
	before = stops()
	t0 := time.Now()
	for range 200 {
		if code, body := h.do(t, "GET", "/metrics", "", nil); code != 200 || !strings.Contains(body, "go_memstats_alloc_bytes ") {
			t.Fatalf("/metrics: %d", code)
		}
	}
	n, limit := stops()-before, uint64(time.Since(t0)/procMetricsEvery)+2
	if n > limit {
		t.Errorf("200 scrapes in %v stopped the world %d times; at most %d", time.Since(t0), n, limit)
	}
	t.Logf("200 scrapes in %v: %d stops of the world", time.Since(t0), n)
}

// What a force leaves behind is bounded whatever the signal's size: the
// reply and /status show about maxShownValue bytes of the value, the event
// ring keeps maxEventValue.
func TestHTTPForceKeepsLittle(t *testing.T) {
	h := startHTTPApp(t, "127.0.0.1:0", "")
	var list []string
	for i := range 100 {
		list = append(list, strconv.Itoa(1000+i)+".25")
	}
	code, body := h.do(t, "POST", "/force", "", strings.NewReader("signal=Streamer.Big&value="+strings.Join(list, ",")))
	if code != 200 || len(body) > maxShownValue+64 || !strings.HasSuffix(body, "…(100 elements)\n") {
		t.Errorf("reply: %d %d bytes %q", code, len(body), body)
	}
	ev := h.events.recent()
	if len(ev) != 1 || len(ev[0].Value) > maxEventValue || !strings.HasPrefix(ev[0].Value, "1000.25,1001.25,") {
		t.Errorf("event: %+v", ev)
	}
	st := h.Status()
	if len(st.Forces) != 1 || len(st.Forces[0].Value) > maxShownValue+32 {
		t.Errorf("/status forces: %+v", st.Forces)
	}
}

// /degrade reads numbers in base 10 and replies with the value applied.
func TestHTTPDegradeBase10(t *testing.T) {
	h := startHTTP(t, exampleFile(t, "rd100s.toml"))
	h.checkReplies(t, "/degrade?datasource=Encoder&", []reply{
		{"key=loss_every_n&value=010", 200, "Encoder: loss_every_n = 10\n"},
		{"key=loss_every_n&value=0", 200, "Encoder: loss_every_n = 0\n"},
		{"key=jitter_ms&value=2.50", 200, "Encoder: jitter_ms = 2.5\n"},
		{"key=loss_every_n&value=0x10", 400, "base 10"},
		{"key=loss_every_n&value=1_0", 400, "base 10"},
		{"key=loss_probability&value=0x1p-2", 400, "base 10"},
		{"key=freeze&value=" + strings.Repeat("1", 100), 400, "at most 64"},
		{"key=restart&value=true", 200, "Encoder: restart = applied\n"},
		{"key=" + strings.Repeat("k", 5000) + "&value=1", 400, "…(5000 bytes)"},
	})
}

// Control requests that meet the stop get 503 "stopping", not a 400 naming
// a datasource's closed state: both when the datasource has closed under
// the request and once Stop has begun.
func TestHTTPControlWhileStopping(t *testing.T) {
	h := startHTTPApp(t, "127.0.0.1:0", "")
	// The datasource closed under the request (Stop closes them first).
	s := h.sources[h.file.DataSource("Streamer")]
	if err := s.ds.Close(); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.serveForce(rec, httptest.NewRequest("POST", "/force?signal=Streamer.Setpoint&value=1", nil))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "stopping") {
		t.Errorf("force on a closed datasource: %d %q", rec.Code, rec.Body.String())
	}
	// Stop begun: every control request.
	h.stopping.Store(true)
	for _, path := range []string{"/force?signal=Nope.X&value=1", "/release?signal=Nope.X", "/degrade?datasource=Nope&key=a&value=1"} {
		if code, body := h.do(t, "POST", path, "", nil); code != http.StatusServiceUnavailable {
			t.Errorf("%s while stopping: %d %q", path, code, body)
		}
	}
}
