package scope

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/streamerd/streamerd/internal/httpguard"
	"github.com/streamerd/streamerd/internal/testenv"
)

const testToken = "s3cret-token-0123456789"

func mustToken(t *testing.T) *httpguard.Token {
	tok, err := httpguard.NewToken(testToken)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// fetch GETs url with client c and returns the status and body.
func fetch(t *testing.T, c *http.Client, url string, header ...string) (int, string) {
	t.Helper()
	return testenv.HTTPDo(t, c, http.MethodGet, url, nil, header...)
}

// With a token, the page, its files, /status.json and the WebSocket need
// it: a browser posts it once to the page's form and carries the session
// cookie; a script sends it as a bearer header. The token is never in a
// URL or a cookie.
func TestTokenGate(t *testing.T) {
	s := startServerHTTP(t, newFakeSource(fakeSigs...), Options{}, HTTPOptions{Token: mustToken(t), Log: quietLog()})
	anon := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	code, body := fetch(t, anon, s.url)
	if code != 401 || !strings.Contains(body, `<form method="post" action="login">`) || !strings.Contains(body, `name="next" value="/"`) {
		t.Errorf("page without the token: %d %.300s", code, body)
	}
	for _, p := range []string{"status.json", "static/scope.js", "ws", "static/"} {
		if code, body := fetch(t, anon, s.url+p); code != 401 || strings.Contains(body, `"type":"stats"`) {
			t.Errorf("%s without the token: %d", p, code)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if _, resp, err := websocket.Dial(ctx, "ws://"+s.addr+"/ws", nil); err == nil || resp == nil || resp.StatusCode != 401 {
		t.Errorf("WebSocket without the token: %v", err)
	}
	if code, body := fetch(t, anon, s.url+"status.json", "Authorization", "Bearer "+testToken); code != 200 || !strings.Contains(body, `"type":"stats"`) {
		t.Errorf("status.json with the bearer token: %d %.100s", code, body)
	}

	// The form: a wrong token is refused; the right one sets the cookie
	// and goes back to the page.
	login := func(c *http.Client, tok string, header ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", s.url+"login", strings.NewReader(url.Values{"token": {tok}, "next": {"/"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := login(anon, "wrong-token-0123456789"); resp.StatusCode != 401 || len(resp.Cookies()) != 0 {
		t.Errorf("wrong token: %d %v", resp.StatusCode, resp.Cookies())
	}
	if resp := login(anon, testToken, "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"); resp.StatusCode != 403 || len(resp.Cookies()) != 0 {
		t.Errorf("cross-origin login: %d %v", resp.StatusCode, resp.Cookies())
	}
	resp := login(anon, testToken, "Origin", strings.TrimSuffix(s.url, "/"), "Sec-Fetch-Site", "same-origin")
	cookies := resp.Cookies()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" || len(cookies) != 1 {
		t.Fatalf("login: %d %q %v", resp.StatusCode, resp.Header.Get("Location"), cookies)
	}
	if c := cookies[0]; !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || strings.Contains(c.Value, testToken) || !strings.HasPrefix(c.Name, "streamerd_scope_") {
		t.Errorf("cookie %+v", c)
	}
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(s.url)
	jar.SetCookies(u, cookies)
	browser := &http.Client{Jar: jar}
	if code, body := fetch(t, browser, s.url); code != 200 || !strings.Contains(body, "static/scope.js") {
		t.Errorf("page with the cookie: %d %.100s", code, body)
	}
	v := dialViewer(t, s, &websocket.DialOptions{HTTPClient: browser})
	v.waitMeta()

	// A form over maxLoginBody is refused unread, even with the right
	// token in it.
	big := url.Values{"token": {testToken}, "next": {"/"}, "pad": {strings.Repeat("x", maxLoginBody)}}.Encode()
	req, _ := http.NewRequest("POST", s.url+"login", strings.NewReader(big))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if resp, err := anon.Do(req); err != nil || resp.StatusCode != http.StatusBadRequest || len(resp.Cookies()) != 0 {
		t.Errorf("login form of %d bytes: %v %v", len(big), err, resp)
	}

	// A redirect goes back to this server only.
	req, _ = http.NewRequest("POST", s.url+"login", strings.NewReader(url.Values{"token": {testToken}, "next": {"//evil.example/"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if resp, err := anon.Do(req); err != nil || resp.Header.Get("Location") != "/" {
		t.Errorf("login with next=//evil.example/: %v %v", err, resp.Header)
	}
}

// A page whose name resolves to the scope (DNS rebinding) gets 421, for
// the page, /status.json and the WebSocket.
func TestScopeHostChecked(t *testing.T) {
	s := startServerHTTP(t, newFakeSource(fakeSigs...), Options{}, HTTPOptions{AllowedHosts: []string{"scope.example.org"}, HostsHint: "the hint", Log: quietLog()})
	for _, p := range []string{"", "status.json", "ws"} {
		if code, body := fetch(t, http.DefaultClient, s.url+p, "Host", "evil.example"); code != 421 || !strings.Contains(body, "the hint") {
			t.Errorf("%s as evil.example: %d %q", p, code, body)
		}
	}
	for _, host := range []string{"scope.example.org", "localhost", s.addr} {
		if code, _ := fetch(t, http.DefaultClient, s.url+"status.json", "Host", host); code != 200 {
			t.Errorf("status.json as %s: %d", host, code)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if _, resp, err := websocket.Dial(ctx, "ws://"+s.addr+"/ws", &websocket.DialOptions{Host: "evil.example"}); err == nil || resp == nil || resp.StatusCode != 421 {
		t.Errorf("WebSocket as evil.example: %v", err)
	}
}

// While 70 sockets hold connections open with an unfinished request and
// reconnect when cut off, the scope's page keeps being served, from
// another address and from the flood's own, and a page's WebSocket opens.
func TestScopeSlowHeaderFloodLocksNoOneOut(t *testing.T) {
	var logs testenv.Buffer
	s := startServerHTTP(t, newFakeSource(fakeSigs...), Options{}, HTTPOptions{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	for _, from := range []string{"127.0.0.2", "127.0.0.1"} {
		f := testenv.StartSlowHeaders(t, s.addr, from, 70, "GET / HTTP/1.1\r\n")
		testenv.Eventually(t, "the flood to hold its connections", time.Minute, func() bool { return f.Connects.Load() >= 70 })
		probe := testenv.ProbeClient("127.0.0.1")
		for i := range 3 {
			if err := testenv.Probe(probe, s.url+"status.json"); err != nil {
				t.Fatalf("flood from %s: probe %d: %v", from, i, err)
			}
		}
	}
	v := dialViewer(t, s, nil)
	v.waitMeta()
	if !strings.Contains(logs.String(), "scope connection bounds reached") || !strings.Contains(logs.String(), "client=127.0.0.2") {
		t.Errorf("log:\n%s", logs.String())
	}
}
