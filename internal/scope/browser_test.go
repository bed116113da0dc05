package scope_test

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/streamerd/streamerd/internal/app"
	"github.com/streamerd/streamerd/internal/httpguard"
	"github.com/streamerd/streamerd/internal/scope"
)

// The browser test drives the page in a real headless Chromium against
// live sources: streamerd running the example configurations.

// pageWait bounds each wait for the page; it only stops a hang.
const pageWait = 20 * time.Second

var screenshot = flag.String("screenshot", "", "TestScreenshot: write a PNG of the scope on configs/burst.toml to this file")

// chromium returns the browser's path, or skips the test saying why.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("STREAMERD_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium found (install the Debian package chromium, or set STREAMERD_CHROMIUM): the browser test needs one")
	return ""
}

// newBrowser starts one headless Chromium for the test, with a fresh
// profile and without the background traffic a closed network makes slow,
// and returns its context: openPage opens tabs in it.
func newBrowser(t *testing.T, width, height int) context.Context {
	exe := chromium(t)
	dir, err := os.MkdirTemp("", "scope-chromium")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(dir),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(width, height),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		t.Fatalf("starting %s: %v", exe, err)
	}
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		// Chromium's children may write in the profile for a moment after it
		// stops.
		for range 50 {
			if os.RemoveAll(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	return ctx
}

// page is one tab with its console errors.
type page struct {
	t   *testing.T
	ctx context.Context

	mu     sync.Mutex
	errors []string
}

func openPage(t *testing.T, browser context.Context, url string) *page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	p := &page{t: t, ctx: ctx}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				p.mu.Lock()
				p.errors = append(p.errors, m.String())
				p.mu.Unlock()
			}
		}
	}()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	return p
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](p *page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// poll waits until expr is truthy and returns its value.
func poll[T any](p *page, what, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Poll[T](expr, chromedp.WithPollingTimeout(pageWait)))
	if err != nil {
		text, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.body.innerText`))
		p.t.Fatalf("waiting for %s: %v; the page says:\n%s", what, err, text)
	}
	return v
}

// afterNavigation waits, through the navigation a form's submission
// starts, until expr is true in the page that loads.
func (p *page) afterNavigation(what, expr string) {
	p.t.Helper()
	deadline := time.Now().Add(pageWait)
	for {
		v, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](expr))
		if err == nil && v {
			return
		}
		if time.Now().After(deadline) {
			text, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.body.innerText`))
			p.t.Fatalf("waiting for %s: %v; the page says:\n%s", what, err, text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// noConsoleErrors fails the test for every error the page logged.
func (p *page) noConsoleErrors() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.errors {
		p.t.Errorf("console: %s", e)
	}
}

// signalNames waits for the page's signal list to have n rows and returns
// their names.
func (p *page) signalNames(n int) []string {
	p.t.Helper()
	s := poll[string](p, "the signal list", `(() => {
		const n = [...document.querySelectorAll("#signals tbody td.name")].map((e) => e.textContent);
		return n.length === `+strconv.Itoa(n)+` ? n.join(",") : false;
	})()`)
	return strings.Split(s, ",")
}

// plot picks signal name for plot 1 through the signal list's select.
func (p *page) plot(name string) {
	p.t.Helper()
	eval[bool](p, `(() => {
		const row = [...document.querySelectorAll("#signals tbody tr")].find((r) => r.querySelector("td.name").textContent === `+strconv.Quote(name)+`);
		const sel = row.querySelector("select");
		sel.value = "1";
		sel.dispatchEvent(new Event("change"));
		return true;
	})()`)
}

// waitLast waits until trace label shows value as its last value, both in
// the trace list and as the last point of the plotted data, and returns
// how long that took.
func (p *page) waitLast(label string, value float64) time.Duration {
	p.t.Helper()
	t0 := time.Now()
	v := strconv.FormatFloat(value, 'g', -1, 64)
	poll[bool](p, label+" = "+v, `(() => {
		const i = scope.traces.findIndex((t) => t.label === `+strconv.Quote(label)+`);
		const d = i < 0 ? null : scope.data[i];
		const shown = document.querySelector('#traces [data-label=`+strconv.Quote(label)+`] .last');
		return !!d && d.y.length > 0 && d.y[d.y.length - 1] === `+v+` && shown !== null && shown.textContent === "`+v+`";
	})()`)
	return time.Since(t0)
}

// counter returns the page's counter id (lost, stale, ...).
func (p *page) waitCounter(id string, cond string) string {
	p.t.Helper()
	return poll[string](p, "counter "+id+" "+cond, `(() => {
		const e = document.querySelector("#c-`+id+` b");
		const v = e ? e.textContent : "";
		return e && (`+cond+`) ? v : false;
	})()`)
}

// TestBrowser loads the page against live UDPStreamer, FlatUDP and RD100S
// sources (streamerd on the example configurations) and checks what a
// person sees: the signal list of the CONFIG or the signals string, a
// forced value as the plotted last value, the lost counter moving when
// datagrams are dropped on purpose, and no error in the console.
func TestBrowser(t *testing.T) {
	browser := newBrowser(t, 1400, 900)
	t.Run("UDPStreamer", func(t *testing.T) { browseUDPStreamer(t, browser) })
	t.Run("FlatUDP", func(t *testing.T) { browseFlatUDP(t, browser) })
	t.Run("FlatUDPText", func(t *testing.T) { browseFlatUDPText(t, browser) })
	t.Run("RD100S", func(t *testing.T) { browseRD100S(t, browser) })
	t.Run("Banners", func(t *testing.T) { browseBanners(t, browser) })
	t.Run("Token", func(t *testing.T) { browseToken(t, browser) })
}

// browseToken: a scope with a token shows a form that asks for it; a
// wrong one is refused; the right one opens the page, which then streams
// without the token in its address or within reach of its scripts.
func browseToken(t *testing.T, browser context.Context) {
	const secret = "s3cret-token-0123456789"
	tok, err := httpguard.NewToken(secret)
	if err != nil {
		t.Fatal(err)
	}
	a := startApp(t, "app.toml", "Port = 44500", udpsPort(freePort(t)))
	_, pageURL := startScopeHTTP(t, &scope.UDPStreamer{Server: streamerAddr(a)}, scope.Options{}, scope.HTTPOptions{Token: tok, Log: quiet()})
	p := openPage(t, browser, pageURL)
	enter := func(token string) {
		eval[bool](p, `(() => {
			document.querySelector("#token").value = `+strconv.Quote(token)+`;
			document.querySelector("#enter").click();
			return true;
		})()`)
	}
	poll[bool](p, "the token form", `!!document.querySelector("#token")`)
	enter("wrong-token-0123456789")
	p.afterNavigation("the refusal", `(() => { const m = document.querySelector("#message"); return !!m && m.textContent === "wrong token"; })()`)
	enter(secret)
	p.afterNavigation("the page", `!!document.querySelector("#signals")`)
	p.mu.Lock()
	p.errors = nil // the form's 401s, which Chromium logs
	p.mu.Unlock()
	names := p.signalNames(len(a.DataSource("Streamer").Signals()))
	p.plot(names[0])
	poll[bool](p, names[0]+" plotted", `scope.data.some((d) => d && d.y.length > 10)`)
	if leak := eval[string](p, `location.href + " " + document.cookie + " " + sessionStorage.length + " " + localStorage.length`); strings.Contains(leak, secret) || leak != pageURL+"  0 0" {
		t.Errorf("the page keeps %q", leak)
	}
	p.noConsoleErrors()
}

// browseBanners: what the terminal says in one line, the page says in its
// banner: a wrong signals string, a server that does not answer, and a page
// over the viewer cap.
func browseBanners(t *testing.T, browser context.Context) {
	_, pageURL := startScope(t, &scope.FlatUDP{Listen: "127.0.0.1:0", Signals: "A:uint8,B:nope", Rate: 100}, scope.Options{MaxViewers: 1})
	p := openPage(t, browser, pageURL)
	poll[bool](p, "the signals banner", `[...document.querySelectorAll(".banner.error")].some((b) => b.textContent.includes('unknown type "nope"'))`)
	second := openPage(t, browser, pageURL)
	poll[bool](second, "the viewer cap banner", `[...document.querySelectorAll(".banner.error")].some((b) => b.textContent.includes("too many viewers"))`)

	mute := freePort(t)
	_, pageURL = startScope(t, &scope.UDPStreamer{Server: "127.0.0.1:" + strconv.Itoa(mute)}, scope.Options{})
	p2 := openPage(t, browser, pageURL)
	poll[bool](p2, "the silent server banner", `[...document.querySelectorAll(".banner.error")].some((b) => b.textContent.includes("does not answer"))`)
	p.noConsoleErrors()
	p2.noConsoleErrors()
}

func browseUDPStreamer(t *testing.T, browser context.Context) {
	a := startApp(t, "app.toml", "Port = 44500", udpsPort(freePort(t)))
	proxy := newLossyProxy(t, streamerAddr(a))
	_, pageURL := startScope(t, &scope.UDPStreamer{Server: proxy.addr()}, scope.Options{})
	p := openPage(t, browser, pageURL)

	var want []string
	for _, s := range a.DataSource("Streamer").Signals() {
		want = append(want, s.Name)
	}
	if got := p.signalNames(len(want)); !slices.Equal(got, want) {
		t.Fatalf("signal list %v, CONFIG %v", got, want)
	}
	p.plot("VoltageRaw")
	poll[bool](p, "VoltageRaw plotted", `scope.data.some((d, i) => d && scope.traces[i].label === "VoltageRaw" && d.y.length > 10)`)
	post(t, a, "/force", url.Values{"signal": {"Streamer.VoltageRaw"}, "value": {"3.25"}})
	t.Logf("forced value plotted after %v", p.waitLast("VoltageRaw", 3.25))
	csv := eval[string](p, `csvText()`)
	if lines := strings.Split(csv, "\n"); !strings.Contains(csv, "t_s,VoltageU16,VoltageI16,VoltageU8,VoltageI8,VoltageRaw\n") ||
		!strings.HasSuffix(strings.TrimSpace(csv), ",3.25") || len(lines) < 20 {
		t.Errorf("CSV of the visible window:\n%.600s", csv)
	}

	// Pause, zoom in with the toolbar: the frozen window is redrawn from the
	// history, at full resolution.
	eval[bool](p, `(() => {
		const w = document.querySelector("#window");
		w.value = "1";
		w.dispatchEvent(new Event("change"));
		return true;
	})()`)
	poll[bool](p, "a second of history", `scope.data.some((d, i) => d && scope.traces[i].label === "VoltageRaw" && d.oldest <= -1)`)
	eval[bool](p, `(() => { document.querySelector("#pause").click(); document.querySelector("#zoomin").click(); return true; })()`)
	poll[bool](p, "the zoomed frozen window", `(() => {
		const i = scope.traces.findIndex((t) => t.label === "VoltageRaw");
		const d = scope.data[i];
		// Inside the window but for one point on each side, so lines reach the edges.
		return !scope.live && scope.to === -0.25 && !!d && d.level === 0 && d.x.length > 10 &&
			Array.from(d.x).slice(1, -1).every((x) => x >= -0.7501 && x <= -0.2499);
	})()`)
	eval[bool](p, `(() => { document.querySelector("#pause").click(); return scope.live; })()`)

	// Arrays: Grid (3x4, one time for all) as a waveform in plot 2, then one
	// of its elements over time.
	eval[bool](p, `(() => {
		const row = [...document.querySelectorAll("#signals tbody tr")].find((r) => r.querySelector("td.name").textContent === "Grid");
		const [plot, as] = row.querySelectorAll("select");
		plot.value = "2";
		plot.dispatchEvent(new Event("change"));
		return as.value === "wave";
	})()`)
	poll[bool](p, "Grid's waveform", `(() => {
		const i = scope.traces.findIndex((t) => t.label === "Grid" && t.kind === "wave");
		return i >= 0 && !!scope.data[i] && scope.data[i].x.length === 12 && scope.plots.has("2:wave-index");
	})()`)
	eval[bool](p, `(() => {
		const row = [...document.querySelectorAll("#signals tbody tr")].find((r) => r.querySelector("td.name").textContent === "Grid");
		const as = row.querySelectorAll("select")[1], elem = row.querySelector("input.elem");
		as.value = "elem";
		elem.value = "5";
		as.dispatchEvent(new Event("change"));
		return true;
	})()`)
	poll[bool](p, "Grid[5] over time", `(() => {
		const i = scope.traces.findIndex((t) => t.label === "Grid[5]" && t.kind === "elem");
		return i >= 0 && !!scope.data[i] && scope.data[i].y.length > 5;
	})()`)

	proxy.drop.Store(5)
	lost := p.waitCounter("lost", "Number(v) > 0")
	t.Logf("lost %s after %d datagrams dropped", lost, proxy.dropped.Load())
	p.noConsoleErrors()
}

// openFlatUDP runs the example configuration name with the port of its
// FlatUDP datasource Flat (examplePort) moved to a free one, and opens a
// page on a scope that reads it at rate datagrams per second. It returns
// the application, Flat's signals string and the page.
func openFlatUDP(t *testing.T, browser context.Context, name, examplePort string, rate float64) (*app.App, string, *page) {
	port := strconv.Itoa(freePort(t))
	a := startApp(t, name, "Port = "+examplePort, "Port = "+port)
	signals := a.DataSource("Flat").(interface{ SignalsString() string }).SignalsString()
	_, pageURL := startScope(t, &scope.FlatUDP{Listen: "127.0.0.1:" + port, Signals: signals, Rate: rate}, scope.Options{})
	return a, signals, openPage(t, browser, pageURL)
}

func browseFlatUDP(t *testing.T, browser context.Context) {
	a, signals, p := openFlatUDP(t, browser, "flatudp.toml", "44488", 1000)
	var want []string
	for _, s := range a.DataSource("Flat").Signals() {
		want = append(want, s.Name)
	}
	if got := p.signalNames(len(want)); !slices.Equal(got, want) {
		t.Fatalf("signal list %v, signals string %q", got, signals)
	}
	poll[bool](p, "Sine plotted", `scope.data.some((d, i) => d && scope.traces[i].label === "Sine" && d.y.length > 10)`)
	post(t, a, "/force", url.Values{"signal": {"Flat.Sine"}, "value": {"0.75"}})
	t.Logf("forced value plotted after %v", p.waitLast("Sine", 0.75))
	p.noConsoleErrors()
}

// browseFlatUDPText: a char8 signal is a row of text in the list, never a
// plot by default, and shows the text the operator forces.
func browseFlatUDPText(t *testing.T, browser context.Context) {
	a, signals, p := openFlatUDP(t, browser, "flatudp_text.toml", "44489", 100)
	if got := p.signalNames(3); !slices.Equal(got, []string{"Counter", "State", "Level"}) {
		t.Fatalf("signal list %v, signals string %q", got, signals)
	}
	text := `(() => { const c = scope.texts.get("State"); return c ? c.textContent : ""; })()`
	poll[bool](p, "State shows running", text+` === "running"`)
	if eval[bool](p, `scope.traces.some((t) => t.label === "State")`) {
		t.Error("the text signal is plotted")
	}
	post(t, a, "/force", url.Values{"signal": {"Flat.State"}, "value": {`pause\d`}})
	poll[bool](p, "State shows the forced text, escaped", text+` === "pause\\\\d"`)
	p.noConsoleErrors()
}

func browseRD100S(t *testing.T, browser context.Context) {
	port := freePort(t)
	a := startApp(t, "rd100s.toml", "dest_port = 5100", "dest_port = "+strconv.Itoa(port))
	_, pageURL := startScope(t, &scope.RD100S{Listen: "127.0.0.1:" + strconv.Itoa(port)}, scope.Options{})
	p := openPage(t, browser, pageURL)
	want := []string{"az", "el", "az_rate", "el_rate", "status", "seq"}
	if got := p.signalNames(len(want)); !slices.Equal(got, want) {
		t.Fatalf("signal list %v, want the packet's fields %v", got, want)
	}
	p.waitCounter("link", `v === "ok"`)
	post(t, a, "/force", url.Values{"signal": {"Encoder.Az"}, "value": {"123.5"}})
	t.Logf("forced value plotted after %v", p.waitLast("az", 123.5))
	post(t, a, "/degrade", url.Values{"datasource": {"Encoder"}, "key": {"loss_probability"}, "value": {"0.5"}})
	lost := p.waitCounter("lost", "Number(v) > 0")
	t.Logf("lost %s with half the packets dropped by the emitter", lost)
	p.noConsoleErrors()
}

// TestScreenshot writes the picture of the scope on configs/burst.toml:
//
//	go test ./internal/scope -run TestScreenshot -screenshot $PWD/docs/scope.png
func TestScreenshot(t *testing.T) {
	if *screenshot == "" {
		t.Skip("give -screenshot FILE to write the picture")
	}
	browser := newBrowser(t, 1400, 820)
	a := startApp(t, "burst.toml", "Port = 44500", udpsPort(freePort(t)))
	_, pageURL := startScope(t, &scope.UDPStreamer{Server: streamerAddr(a)}, scope.Options{})
	p := openPage(t, browser, pageURL)
	p.signalNames(2)
	eval[bool](p, `(() => {
		const row = [...document.querySelectorAll("#signals tbody tr")][0];
		const sel = row.querySelector("select");
		sel.value = "2";
		sel.dispatchEvent(new Event("change"));
		return true;
	})()`)
	poll[bool](p, "both plotted", `scope.data.length === 2 && scope.data.every((d) => d && d.y.length > 10)`)
	time.Sleep(time.Second) // a full window behind the newest sample
	eval[bool](p, `(() => { setLive(false); setWindow(-0.0012, -0.0002); return true; })()`)
	poll[bool](p, "the zoomed frame", `(() => {
		const d = scope.data[scope.traces.findIndex((t) => t.label === "Ch1")];
		return d && d.level === 0 && d.x[0] > -0.0015;
	})()`)
	eval[bool](p, `(() => { setCursor("time", -0.000925); setCursor("time", -0.00085); return true; })()`)
	time.Sleep(200 * time.Millisecond)
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*screenshot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "wrote %s (%d bytes)\n", *screenshot, len(png))
	p.noConsoleErrors()
}
