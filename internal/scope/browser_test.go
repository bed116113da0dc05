package scope_test

import (
	"context"
	"flag"
	"fmt"
	"math"
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

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/app"
	"github.com/streamerd/streamerd/internal/httpguard"
	"github.com/streamerd/streamerd/internal/scope"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/internal/udpstest"
)

// The browser test drives the page in a real headless Chromium against
// live sources: streamerd running the example configurations.

// pageWait bounds each wait for a condition in the page, and callBound
// each call to the page (a tab drawing 100 traces on a loaded machine
// answers slowly); they only stop a hang.
const (
	pageWait  = 30 * time.Second
	callBound = 60 * time.Second
)

var screenshot = flag.Bool("screenshot", false, "TestBrowser/FirstScreen: write "+screenshotFile+" (the scope on configs/app.toml) and the hash of the page's files beside it")

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
	t      *testing.T
	ctx    context.Context
	cancel context.CancelFunc // closes the tab

	mu     sync.Mutex
	errors []string
}

func openPage(t *testing.T, browser context.Context, url string) *page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	p := &page{t: t, ctx: ctx, cancel: cancel}
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

// within bounds one call to the page: a hang fails the test instead of
// the test binary's timeout. (The tab belongs to p.ctx, so ending the
// derived context leaves it open.)
func (p *page) within(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(p.ctx, d)
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](p *page, expr string) T {
	p.t.Helper()
	ctx, cancel := p.within(callBound)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// poll waits until expr is truthy and returns its value. A page that
// navigates meanwhile (the token form's) is polled again in its new
// document: Chromium may name the old one for a moment.
func poll[T any](p *page, what, expr string) T {
	p.t.Helper()
	deadline := time.Now().Add(pageWait)
	for {
		ctx, cancel := p.within(time.Until(deadline) + callBound)
		v, err := chromedp.Run(ctx, chromedp.Poll[T](expr, chromedp.WithPollingTimeout(time.Until(deadline))))
		cancel()
		if err == nil {
			return v
		}
		if !navigating(err) || time.Now().After(deadline) {
			p.t.Fatalf("waiting for %s: %v; the page says:\n%s", what, err, p.text())
		}
		time.Sleep(20 * time.Millisecond) // the new document's context comes
	}
}

// navigating reports whether err says the document went away under the
// call, as when the page navigates.
func navigating(err error) bool {
	s := err.Error()
	return strings.Contains(s, "Cannot find context with specified id") || strings.Contains(s, "Execution context was destroyed")
}

// text returns what the page says, or why it cannot.
func (p *page) text() string {
	ctx, cancel := p.within(callBound)
	defer cancel()
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		return err.Error()
	}
	return text
}

// afterNavigation waits, through the navigation a form's submission
// starts, until expr is true in the page that loads.
func (p *page) afterNavigation(what, expr string) {
	p.t.Helper()
	deadline := time.Now().Add(pageWait)
	for {
		ctx, cancel := p.within(callBound)
		v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		cancel()
		if err == nil && v {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("waiting for %s: %v; the page says:\n%s", what, err, p.text())
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
		const n = [...document.querySelectorAll("#signals tbody td.name")].map((e) => e.firstChild.textContent);
		return n.length === `+strconv.Itoa(n)+` ? n.join(",") : false;
	})()`)
	return strings.Split(s, ",")
}

// row is the expression of signal name's row in the signal list.
func row(name string) string {
	return `[...document.querySelectorAll("#signals tbody tr")].find((r) => r.querySelector("td.name").firstChild.textContent === ` + strconv.Quote(name) + `)`
}

// plot ticks signal name's box in the signal list, as a person does.
func (p *page) plot(name string) {
	p.t.Helper()
	eval[bool](p, `(() => {
		const box = `+row(name)+`.querySelector("input.pick");
		box.checked = true;
		box.dispatchEvent(new Event("change"));
		return true;
	})()`)
}

// window picks the window of seconds in the toolbar.
func (p *page) window(seconds string) {
	p.t.Helper()
	eval[bool](p, `(() => {
		const w = document.querySelector("#window");
		w.value = `+strconv.Quote(seconds)+`;
		w.dispatchEvent(new Event("change"));
		return true;
	})()`)
}

// firstView waits until the page shows the server's first view and
// returns the labels of its traces.
func (p *page) firstView() []string {
	p.t.Helper()
	s := poll[string](p, "the first view", `scope.firstView && scope.traces.length > 0 && scope.plots.size > 0 ? scope.traces.map((t) => t.label).join(",") : false`)
	return strings.Split(s, ",")
}

// plotted waits until every trace of the page has points.
func (p *page) plotted(min int) {
	p.t.Helper()
	poll[bool](p, "every trace plotted", `scope.traces.length > 0 && scope.data.every((d) => d && d.vid === scope.vid && d.y.length >= `+strconv.Itoa(min)+`)`)
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
		const shown = document.querySelector('.legend [data-label=`+strconv.Quote(label)+`] .last');
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

// TestBrowser loads the page against live sources (streamerd running the
// example configurations, and a scripted UDPStreamer server where a
// situation must be staged exactly) and checks what a person sees: the
// first view, the signal list of the CONFIG or the signals string, a
// forced value as the plotted last value, one plot per unit, 100 traces
// and the bound past them, lost and skipped updates on the time axis, a
// stopped stream greyed, and no error in the console.
func TestBrowser(t *testing.T) {
	browser := newBrowser(t, 1400, 900)
	t.Run("FirstScreen", func(t *testing.T) { browseFirstScreen(t, browser) })
	t.Run("UDPStreamer", func(t *testing.T) { browseUDPStreamer(t, browser) })
	t.Run("ManySignals", func(t *testing.T) { browseManySignals(t, browser) })
	t.Run("Skipped", func(t *testing.T) { browseSkipped(t, browser) })
	t.Run("FlatUDP", func(t *testing.T) { browseFlatUDP(t, browser) })
	t.Run("FlatUDPText", func(t *testing.T) { browseFlatUDPText(t, browser) })
	t.Run("RD100S", func(t *testing.T) { browseRD100S(t, browser) })
	t.Run("Banners", func(t *testing.T) { browseBanners(t, browser) })
	t.Run("Token", func(t *testing.T) { browseToken(t, browser) })
}

// screenshotFile is the picture of the scope in the README, relative to
// this package; screenshotFile+".sha256" holds the hash of the page's
// files it was taken with (TestScreenshotCurrent).
const screenshotFile = "../../docs/scope.png"

// browseFirstScreen: on configs/app.toml as shipped, the page opens on
// distinct signals, one plot per unit: of the five signals that carry one
// sine (four quantisations and the raw value) only the raw one, no
// counter, no time signal. With -screenshot it writes the README's
// picture of that screen once the window is full.
func browseFirstScreen(t *testing.T, browser context.Context) {
	a := startApp(t, "app.toml", "Port = 44500", udpsPort(testenv.FreeUDPPort(t)))
	_, pageURL := startScope(t, &scope.UDPStreamer{Server: streamerAddr(a)}, scope.Options{})
	p := openPage(t, browser, pageURL)
	got := p.firstView()
	t.Logf("first view: %v", got)
	for _, name := range []string{"VoltageU16", "VoltageI16", "VoltageU8", "VoltageI8"} {
		if note := eval[string](p, row(name)+`.querySelector(".note").textContent`); note != " = VoltageRaw" {
			t.Errorf("%s is noted %q, want it a copy of VoltageRaw", name, note)
		}
	}
	if !slices.Contains(got, "VoltageRaw") || slices.ContainsFunc(got, func(s string) bool {
		return strings.HasPrefix(s, "Voltage") && s != "VoltageRaw" || s == "Counter" || s == "CounterCopy" || s == "Time"
	}) {
		t.Errorf("first view %v: want VoltageRaw and no copy of it, no counter, no time signal", got)
	}
	if n := eval[int](p, `new Set(scope.traces.map((t) => scope.signals[t.sig].copyOf || scope.signals[t.sig].name)).size`); n != len(got) {
		t.Errorf("first view %v: %d distinct signals", got, n)
	}
	// One plot per unit, each with its unit on its y axis.
	plots := eval[string](p, `[...scope.plots.values()].map((p) => p.key + "=" + p.traces.map((i) => scope.traces[i].unit).join("/")).join(" ")`)
	for _, pl := range strings.Fields(plots) {
		key, units, _ := strings.Cut(pl, "=")
		_, unit, _ := strings.Cut(key, "|")
		for _, u := range strings.Split(units, "/") {
			if u != unit {
				t.Errorf("plot %s holds a trace in %q", key, u)
			}
		}
	}
	t.Logf("plots: %s", plots)
	p.plotted(10)
	if !*screenshot {
		p.noConsoleErrors()
		return
	}
	poll[bool](p, "a full window", `scope.data.every((d, i) => scope.traces[i].kind === "wave" || d.oldest <= -scope.window)`)
	p.plotted(10)
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := scope.PageHash()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(screenshotFile, png, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(screenshotFile+".sha256", []byte(sum+"  internal/scope/web\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes) and its page hash %s", screenshotFile, len(png), sum)
	p.noConsoleErrors()
}

func browseUDPStreamer(t *testing.T, browser context.Context) {
	a := startApp(t, "app.toml", "Port = 44500", udpsPort(testenv.FreeUDPPort(t)))
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
	p.firstView()
	p.plot("VoltageI8")
	poll[bool](p, "VoltageI8 plotted", `scope.data.some((d, i) => d && scope.traces[i].label === "VoltageI8" && d.y.length > 10)`)
	post(t, a, "/force", url.Values{"signal": {"Streamer.VoltageRaw"}, "value": {"3.25"}})
	t.Logf("forced value plotted after %v", p.waitLast("VoltageRaw", 3.25))
	csv := eval[string](p, `csvText()`)
	block, _, _ := strings.Cut(csv[strings.Index(csv, "# plot V (time)"):], "\n\n")
	if lines := strings.Split(block, "\n"); !strings.Contains(block, "\nt_s,VoltageI8,VoltageRaw,Noise,Ch1\n") ||
		!slices.ContainsFunc(lines, func(l string) bool { f := strings.Split(l, ","); return len(f) == 5 && f[2] == "3.25" }) || len(lines) < 20 {
		t.Errorf("CSV of the visible window:\n%.800s", csv)
	}

	// The pointer over a plot, then two clicks: cursors A and B, and every
	// trace's value at each in the table under the plots.
	readout := poll[string](p, "the cursors' table", `(() => {
		const over = document.querySelector('.plot[data-key="time|V"] .u-over'), r = over.getBoundingClientRect();
		for (const f of [0.25, 0.75]) {
			const at = { clientX: r.left + f * r.width, clientY: r.top + r.height / 2, bubbles: true };
			for (const type of ["mousemove", "mousedown", "mouseup", "click"]) over.dispatchEvent(new MouseEvent(type, at));
		}
		const row = [...document.querySelectorAll("#readout tr")].find((tr) => tr.firstChild.textContent === "VoltageRaw");
		const hover = over.closest(".plot").querySelector('.legend [data-label="VoltageRaw"]').textContent;
		return row && [...row.children].slice(1, 3).every((td) => td.textContent !== "—") && / at -/.test(hover) ?
			document.querySelector("#readout").innerText + "\n" + hover : false;
	})()`)
	if !strings.Contains(readout, "B−A") {
		t.Errorf("cursors' table and legend:\n%s", readout)
	}
	eval[bool](p, `(() => {
		document.querySelector('.plot[data-key="time|V"] .u-over').dispatchEvent(new MouseEvent("mouseleave"));
		document.querySelector("#clearcursors").click();
		return true;
	})()`)

	// Pause, then zoom in with the toolbar: the frozen window is redrawn
	// from the history, with the anchor of the moment it paused, at full
	// resolution: every sample the paused frame had in the zoomed window
	// is in the zoomed frame. (Whatever the stream did meanwhile: under
	// load it may stall, so the test asks for no number of samples.)
	p.window("1")
	raw := `scope.data[scope.traces.findIndex((t) => t.label === "VoltageRaw")]`
	poll[bool](p, "a second of history", `(() => { const d = `+raw+`; return !!d && d.vid === scope.vid && d.oldest <= -1; })()`)
	eval[bool](p, `(() => { document.querySelector("#pause").click(); return true; })()`)
	paused := poll[[]float64](p, "the paused frame", `(() => {
		const d = `+raw+`;
		return !scope.live && !!d && d.vid === scope.vid && d.level === 0 ? Array.from(d.x).filter((x) => x >= -0.75 && x <= -0.25) : false;
	})()`)
	eval[bool](p, `(() => { document.querySelector("#zoomin").click(); return true; })()`)
	zoomed := poll[[]float64](p, "the zoomed frozen window", `(() => {
		const d = `+raw+`;
		// Inside the window but for one point on each side, so lines reach the edges.
		return !scope.live && scope.to === -0.25 && !!d && d.vid === scope.vid && d.level === 0 &&
			Array.from(d.x).slice(1, -1).every((x) => x >= -0.7501 && x <= -0.2499) ? Array.from(d.x) : false;
	})()`)
	for _, x := range paused {
		if !slices.Contains(zoomed, x) {
			t.Fatalf("the paused frame's sample at %v s is not in the zoomed frame %v", x, zoomed)
		}
	}
	t.Logf("zoomed: %d points, the paused frame had %d in that window", len(zoomed), len(paused))
	eval[bool](p, `(() => { document.querySelector("#pause").click(); return scope.live; })()`)

	// Arrays: Grid (3x4, one time for all) is a waveform of the first
	// view; then one of its elements over time.
	poll[bool](p, "Grid's waveform", `(() => {
		const i = scope.traces.findIndex((t) => t.label === "Grid" && t.kind === "wave");
		return i >= 0 && !!scope.data[i] && scope.data[i].x.length === 12 && scope.plots.has("wave-index|");
	})()`)
	eval[bool](p, `(() => {
		const r = `+row("Grid")+`, as = r.querySelector("select"), elem = r.querySelector("input.elem");
		as.value = "elem";
		elem.value = "5";
		as.dispatchEvent(new Event("change"));
		return true;
	})()`)
	poll[bool](p, "Grid[5] over time", `(() => {
		const i = scope.traces.findIndex((t) => t.label === "Grid[5]" && t.kind === "elem");
		return i >= 0 && !!scope.data[i] && scope.data[i].y.length > 5;
	})()`)

	// Lost updates: counted, and marked on the time axis where they were.
	p.window("30")
	proxy.drop.Store(5)
	lost := p.waitCounter("lost", "Number(v) > 0")
	t.Logf("lost %s after %d datagrams dropped", lost, proxy.dropped.Load())
	marked := poll[string](p, "the lost updates marked", `(() => {
		const e = document.querySelector('.plot[data-key="time|V"] .mark.lost');
		return scope.marks.some((m) => m.kind === "lost" && m.x < 0 && m.x > -30) && e ? e.textContent : false;
	})()`)
	t.Logf("V plot: %s", marked)

	// A stopped stream: greyed, and the banner counts the seconds.
	a.Stop()
	poll[bool](p, "the stopped stream greyed", `document.body.classList.contains("stale") &&
		[...document.querySelectorAll(".banner")].some((b) => Number((/^no data for (\d+) s/.exec(b.textContent) || [])[1]) >= 2)`)
	if n := eval[int](p, `scope.plots.size`); n == 0 {
		t.Error("the stopped stream's plots are gone")
	}
	p.noConsoleErrors()
}

// manySignals is a streamerd configuration of n sine signals at 1 kHz on a
// UDPStreamer, of four units, each of its own frequency.
func manySignals(n, port int) string {
	var b strings.Builder
	units := []string{"V", "A", "deg", ""}
	b.WriteString("[App]\nHTTPAddress = \"127.0.0.1:9100\"\n\n[[Threads]]\nName = \"RT1\"\nFrequency = 1000.0\nGAMs = [")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", fmt.Sprintf("G%03d", i))
	}
	b.WriteString("]\n")
	for i := range n {
		fmt.Fprintf(&b, "\n[[GAMs]]\nName = \"G%03d\"\nClass = \"Waveform\"\nWaveform = \"sine\"\nAmplitude = %d.0\nFrequency = %.1f\n"+
			"  [[GAMs.Outputs]]\n  Signal = \"Out\"\n  DataSource = \"Streamer\"\n  Alias = \"S%03d\"\n", i, 1+i%7, 0.5+0.1*float64(i), i)
	}
	fmt.Fprintf(&b, "\n[[DataSources]]\nName = \"Streamer\"\nClass = \"UDPStreamer\"\nPort = %d\nMaxPayloadSize = 1400\nAllowedClients = [\"127.0.0.0/8\"]\n", port)
	for i := range n {
		fmt.Fprintf(&b, "\n  [[DataSources.Signals]]\n  Name = \"S%03d\"\n  Type = \"float32\"\n  Unit = %q\n", i, units[i%len(units)])
	}
	return b.String()
}

// browseManySignals: a stream of 100 signals, all plotted at once, in one
// plot per unit; and a page whose bound is lower than the signals shows
// the bound instead of a blank page.
func browseManySignals(t *testing.T, browser context.Context) {
	n := 100 // STREAMERD_SCOPE_SIGNALS=256 measures the page at its bound
	if s := os.Getenv("STREAMERD_SCOPE_SIGNALS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 64 || n > scope.MaxTraces {
			t.Fatalf("STREAMERD_SCOPE_SIGNALS=%q: want 64 to %d", s, scope.MaxTraces)
		}
	}
	a := startAppText(t, "many.toml", manySignals(n, testenv.FreeUDPPort(t)))
	srv, pageURL := startScope(t, &scope.UDPStreamer{Server: streamerAddr(a)}, scope.Options{})
	p := openPage(t, browser, pageURL)
	p.signalNames(n)
	p.firstView()
	eval[bool](p, `(() => { document.querySelector("#pickall").click(); return true; })()`)
	poll[bool](p, "every signal a trace", `scope.traces.length === `+strconv.Itoa(n))
	p.plotted(10)
	if plots := eval[string](p, `[...scope.plots.keys()].join(",")`); plots != "time|V,time|A,time|deg,time|" {
		t.Errorf("plots %s, want one per unit", plots)
	}
	// How fast the page draws them: frames drawn per second, and the time
	// each draw takes, over 10 draws.
	start := eval[[]float64](p, `[scope.draws, scope.drawMs, performance.now()]`)
	end := poll[[]float64](p, "10 more draws", `scope.draws >= `+strconv.Itoa(int(start[0])+10)+` ? [scope.draws, scope.drawMs, performance.now(), scope.fps] : false`)
	draws := end[0] - start[0]
	vs := srv.ViewerStats()
	t.Logf("%d traces: %.1f draws/s, %.1f ms per draw (the page asks for %v frames/s; 0: the server's 30); frames: %d sent, %d held for an acknowledgement, %d bytes each",
		n, draws/(end[2]-start[2])*1000, (end[1]-start[1])/draws, end[3], vs.FramesSent, vs.FramesHeld, vs.FrameBytes/max(vs.FramesSent, 1))
	p.noConsoleErrors()
	p.cancel() // a tab drawing 100 traces slows the next one's start

	// The same stream through the datasource's tap, to a scope that lets a
	// page plot 64 traces: "all" plots 64 and says why not more, and one
	// more box is refused with the same words.
	tap, err := scope.OpenTap(a.DataSource("Streamer").(*udpstreamer.Streamer))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tap.Close)
	_, pageURL = startScope(t, &scope.UDPStreamerTap{Name: "Streamer", Tap: tap}, scope.Options{Limits: scope.Limits{MaxTraces: 64}})
	p2 := openPage(t, browser, pageURL)
	p2.signalNames(n)
	p2.firstView()
	// The notice stays 10 s: read it as the click makes it.
	banners := `[...document.querySelectorAll(".banner")].map((b) => b.textContent).join("\n")`
	if b := eval[string](p2, `(() => { document.querySelector("#pickall").click(); return `+banners+`; })()`); pageTraces(p2) != 64 ||
		!strings.Contains(b, fmt.Sprintf("at most 64 traces on a page: 64 of %d signals are plotted", n)) {
		t.Errorf("%d traces after all, banners:\n%s", pageTraces(p2), b)
	}
	p2.plotted(10)
	if b := eval[string](p2, `(() => {
		const box = `+row("S099")+`.querySelector("input.pick");
		box.checked = true;
		box.dispatchEvent(new Event("change"));
		return box.checked ? "ticked" : `+banners+`;
	})()`); pageTraces(p2) != 64 || !strings.Contains(b, "at most 64 traces on a page: untick one to plot S099") {
		t.Errorf("%d traces after one more, banners:\n%s", pageTraces(p2), b)
	}
	p2.noConsoleErrors()
}

// pageTraces returns how many traces the page plots.
func pageTraces(p *page) int { return eval[int](p, `scope.traces.length`) }

// browseSkipped: a server whose time stamps say it skipped five cycles,
// and whose counter says one update was lost: both counted, and both
// marked on the time axis where they happened.
func browseSkipped(t *testing.T, browser context.Context) {
	sigs := []datasource.Signal{
		{Name: "A", Type: datasource.Float64, Unit: "V"},
		{Name: "B", Type: datasource.Float64, Unit: "V"},
	}
	srv := udpstest.NewServer(t, sigs, 1400)
	_, pageURL := startScope(t, &scope.UDPStreamer{Server: srv.Addr().String()}, scope.Options{})
	p := openPage(t, browser, pageURL)
	if _, ok := srv.WaitClient(pageWait); !ok {
		t.Fatal("no CONNECT")
	}
	send := func(counter uint32, ms int) {
		payload, err := udpstest.Payload(sigs, uint64(ms)*1e6, [][]float64{{math.Sin(float64(ms) / 20)}, {float64(ms % 50)}})
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.SendUpdate(counter, payload); err != nil {
			t.Fatal(err)
		}
	}
	// Updates 1 ms apart, then 6 ms (5 cycles skipped), then a counter
	// that jumps by 2 (1 update lost, no cycle skipped).
	ms := 1000
	for c := uint32(1); c <= 60; c++ {
		if ms++; c == 41 {
			ms += 5
		}
		if c == 51 {
			continue
		}
		send(c, ms)
	}
	p.waitCounter("skipped", `v === "5"`)
	p.waitCounter("lost", `v === "1"`)
	p.firstView()
	got := poll[string](p, "the markers", `(() => {
		const m = scope.marks.filter((m) => m.kind !== "silence").map((m) => m.kind + " " + m.n).sort().join(", ");
		const e = document.querySelector('.plot[data-key="time|V"] .marks');
		return m === "lost 1, skipped 5" && e && e.textContent.includes("lost 1") && e.textContent.includes("skipped 5") ? m + " at " + scope.marks.map((m) => m.x).join(", ") : false;
	})()`)
	t.Logf("markers: %s", got)
	p.noConsoleErrors()
}

// openFlatUDP runs the example configuration name with the port of its
// FlatUDP datasource Flat (examplePort) moved to a free one, and opens a
// page on a scope that reads it at rate datagrams per second. It returns
// the application, Flat's signals string and the page.
func openFlatUDP(t *testing.T, browser context.Context, name, examplePort string, rate float64) (*app.App, string, *page) {
	port := strconv.Itoa(testenv.FreeUDPPort(t))
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
	port := testenv.FreeUDPPort(t)
	a := startApp(t, "rd100s.toml", "dest_port = 5100", "dest_port = "+strconv.Itoa(port))
	_, pageURL := startScope(t, &scope.RD100S{Listen: "127.0.0.1:" + strconv.Itoa(port)}, scope.Options{})
	p := openPage(t, browser, pageURL)
	want := []string{"az", "el", "az_rate", "el_rate", "status", "seq"}
	if got := p.signalNames(len(want)); !slices.Equal(got, want) {
		t.Fatalf("signal list %v, want the packet's fields %v", got, want)
	}
	p.waitCounter("link", `v === "ok"`)
	// Degrees and degrees per second: one plot, one y axis, each.
	p.firstView()
	if plots := eval[string](p, `[...scope.plots.values()].map((p) => p.key + ":" + p.traces.map((i) => scope.traces[i].label).join("/")).join(" ")`); !strings.Contains(plots, "time|deg:az/el") || !strings.Contains(plots, "time|deg/s:az_rate/el_rate") {
		t.Errorf("plots %s: want az and el in the plot of deg, their rates in the plot of deg/s", plots)
	}
	post(t, a, "/force", url.Values{"signal": {"Encoder.Az"}, "value": {"123.5"}})
	t.Logf("forced value plotted after %v", p.waitLast("az", 123.5))
	post(t, a, "/degrade", url.Values{"datasource": {"Encoder"}, "key": {"loss_probability"}, "value": {"0.5"}})
	lost := p.waitCounter("lost", "Number(v) > 0")
	t.Logf("lost %s with half the packets dropped by the emitter", lost)
	p.noConsoleErrors()
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
	a := startApp(t, "app.toml", "Port = 44500", udpsPort(testenv.FreeUDPPort(t)))
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

	mute := testenv.FreeUDPPort(t)
	_, pageURL = startScope(t, &scope.UDPStreamer{Server: "127.0.0.1:" + strconv.Itoa(mute)}, scope.Options{})
	p2 := openPage(t, browser, pageURL)
	poll[bool](p2, "the silent server banner", `[...document.querySelectorAll(".banner.error")].some((b) => b.textContent.includes("does not answer"))`)
	p.noConsoleErrors()
	p2.noConsoleErrors()
}
