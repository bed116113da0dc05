package scope

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/streamerd/streamerd/internal/testenv"
)

// Signals of the fake source: two scalars and a 4-element array whose
// elements share a time.
var fakeSigs = []Signal{
	{Name: "A", Type: "float64", Unit: "V", Dims: "scalar", Elements: 1, Time: "t", Trace: true},
	{Name: "B", Type: "int32", Dims: "scalar", Elements: 1, Time: "t", Trace: true},
	{Name: "W", Type: "float32", Dims: "[4]", Elements: 4, Time: "t", WaveX: "index"},
}

func fakeUpdateAt(k int) fakeUpdate {
	t := float64(k) * 1e-3
	return fakeUpdate{
		vals:  [][]float64{{float64(k) * 0.5}, {-float64(k)}, {float64(k), float64(k + 1), float64(k + 2), float64(k + 3)}},
		times: [][]float64{{t}, {t}, {t, t, t, t}},
	}
}

func TestServesPageFilesAndStatus(t *testing.T) {
	s := startServer(t, newFakeSource(fakeSigs...), Options{})
	for _, c := range []struct{ path, want string }{
		{"", "streamerd scope"},
		{"static/scope.js", "uPlot"},
		{"static/scope.css", "#counters"},
		{"static/vendor/uplot/uPlot.iife.min.js", "uPlot"},
		{"static/vendor/uplot/uPlot.min.css", ".uplot"},
		{"static/vendor/uplot/LICENSE", "MIT License"},
		{"status.json", `"type":"stats"`},
	} {
		code, body := testenv.HTTPGet(t, s.url+c.path)
		if code != http.StatusOK || !strings.Contains(body, c.want) {
			t.Errorf("GET /%s: %d, body without %q", c.path, code, c.want)
		}
	}
	if code, _ := testenv.HTTPGet(t, s.url+"nothing"); code != http.StatusNotFound {
		t.Errorf("GET /nothing: %d", code)
	}
}

// TestViewerGetsSignalsAndFrames: the page gets the signal list, then frames
// with the traces it asked for: exact last values, a waveform against its
// index, and an element over time recorded from the moment it was asked.
func TestViewerGetsSignalsAndFrames(t *testing.T) {
	src := newFakeSource(fakeSigs...)
	s := startServer(t, src, Options{})
	v := dialViewer(t, s, nil)
	gen := v.waitMeta()
	if len(v.meta.Signals) != 3 || v.meta.Signals[2].Name != "W" || v.meta.Source.Kind != "fake" {
		t.Fatalf("meta %+v", v.meta)
	}
	for k := range 100 {
		src.updates <- fakeUpdateAt(k)
	}
	eventually(t, "100 updates", func() bool { return src.pushed.Load() == 100 })
	v.send(liveView(gen, 1, traceRef{Sig: 0, Kind: "trace"}, traceRef{Sig: 2, Kind: "wave"}, traceRef{Sig: 2, Kind: "elem", Elem: 2}))
	eventually(t, "the element trace", func() bool {
		s.hub.mu.RLock()
		defer s.hub.mu.RUnlock()
		return len(s.hub.elems) == 1
	})
	for k := 100; k < 200; k++ {
		src.updates <- fakeUpdateAt(k)
	}
	f := v.until("a frame of update 199", func(f Frame, ok bool) bool {
		return ok && len(f.Traces) == 3 && f.Traces[0].Last == 99.5 && f.Traces[2].Last == 201
	})
	a := f.Traces[0]
	if a.Kind != KindTrace || a.Level != 0 || len(a.Y) != 200 || a.Y[199] != 99.5 || a.Anchor != 0.199 {
		t.Fatalf("trace A: kind %v level %d, %d points, anchor %v", a.Kind, a.Level, len(a.Y), a.Anchor)
	}
	if x := a.X[0]; math.Abs(float64(x)+0.199) > 1e-6 {
		t.Errorf("trace A starts at %v s, want -0.199", x)
	}
	w := f.Traces[1]
	if w.Kind != KindWave || len(w.X) != 4 || w.X[3] != 3 || w.Y[0] != 199 || w.Y[3] != 202 {
		t.Errorf("waveform %+v", w)
	}
	e := f.Traces[2]
	if e.Kind != KindElement || len(e.Y) == 0 || len(e.Y) > 100 || e.Y[len(e.Y)-1] != 201 {
		t.Errorf("element trace: %d points, last %v", len(e.Y), e.Last)
	}
	v.until("stats of a receiving source", func(Frame, bool) bool {
		return v.stats.Status.State == StateReceiving && v.stats.Counters.Updates == 200
	})
}

// TestFrozenViewKeepsItsAnchor: a paused page's zooms and pans refer to the
// moment it paused, while updates go on; waveforms are not resent.
func TestFrozenViewKeepsItsAnchor(t *testing.T) {
	src := newFakeSource(fakeSigs...)
	s := startServer(t, src, Options{})
	v := dialViewer(t, s, nil)
	gen := v.waitMeta()
	for k := range 100 {
		src.updates <- fakeUpdateAt(k)
	}
	eventually(t, "100 updates", func() bool { return src.pushed.Load() == 100 })
	frozen := viewMsg{Type: "view", Gen: gen, Vid: 1, From: -0.05, To: 0, Cols: 400,
		Traces: []traceRef{{Sig: 0, Kind: "trace"}, {Sig: 2, Kind: "wave"}}}
	v.send(frozen)
	f := v.until("a frozen frame", func(f Frame, ok bool) bool { return ok && f.View == 1 })
	if f.Live || len(f.Traces) != 1 || f.Traces[0].Anchor != 0.099 || len(f.Traces[0].Y) != 52 {
		t.Fatalf("frozen frame: live %v, %d traces, %+v", f.Live, len(f.Traces), f.Traces)
	}
	for k := 100; k < 300; k++ {
		src.updates <- fakeUpdateAt(k)
	}
	eventually(t, "300 updates", func() bool { return src.pushed.Load() == 300 })
	frozen.Vid, frozen.From, frozen.To = 2, -0.02, -0.01 // zoom in
	v.send(frozen)
	f = v.until("the zoomed frame", func(f Frame, ok bool) bool { return ok && f.View == 2 })
	tr := f.Traces[0]
	if tr.Anchor != 0.099 || tr.Y[1] != float64(79)*0.5 {
		t.Fatalf("zoomed: anchor %v, values %v", tr.Anchor, tr.Y)
	}
	v.send(liveView(gen, 1, traceRef{Sig: 0, Kind: "trace"}))
	f = v.until("a live frame again", func(f Frame, ok bool) bool { return ok && f.Live })
	if f.Traces[0].Anchor != 0.299 {
		t.Fatalf("live again: anchor %v", f.Traces[0].Anchor)
	}
}

// TestViewerBadViewGetsNotice: a view out of bounds is refused with a
// notice, and the page stays connected.
func TestViewerBadViewGetsNotice(t *testing.T) {
	s := startServer(t, newFakeSource(fakeSigs...), Options{})
	v := dialViewer(t, s, nil)
	gen := v.waitMeta()
	for _, m := range []viewMsg{
		{Type: "view", Gen: gen, Live: true, From: -1, To: 0, Cols: 1},
		{Type: "view", Gen: gen, Live: true, From: -3600, To: 0, Cols: 100},
		{Type: "view", Gen: gen, Live: true, From: -1, To: 0, Cols: 100, Traces: make([]traceRef, MaxTraces+1)},
		{Type: "view", Gen: gen, Live: true, From: -1, To: 0, Cols: 100, Traces: []traceRef{{Kind: "sideways"}}},
	} {
		n := len(v.notices)
		v.send(m)
		v.until("a notice", func(Frame, bool) bool { return len(v.notices) > n })
	}
	for _, c := range []struct {
		m    viewMsg
		want string
	}{
		{liveView(gen, 1, traceRef{Sig: 2, Kind: "elem", Elem: 9}), `view refused: trace 0: no such element 9: "W" has 4 elements (0 to 3)`},
		{liveView(gen, 1, traceRef{Sig: 2, Kind: "elem", Elem: -1}), `no such element -1`},
		{liveView(gen, 1, traceRef{Sig: 0, Kind: "trace"}, traceRef{Sig: 99999, Kind: "trace"}), `view refused: trace 1: no signal 99999: the list has 3 signals (0 to 2)`},
		{liveView(gen, 1, traceRef{Sig: -1, Kind: "wave"}), `no signal -1`},
		{liveView(gen+5, 1, traceRef{Sig: 0, Kind: "trace"}), fmt.Sprintf("signal list %d: the newest is %d", gen+5, gen)},
	} {
		n := len(v.notices)
		v.send(c.m)
		v.until("the notice "+c.want, func(Frame, bool) bool { return len(v.notices) > n })
		if got := v.notices[len(v.notices)-1]; !strings.Contains(got, c.want) {
			t.Errorf("notice %q, want %q", got, c.want)
		}
	}
}

// TestViewerCap: one page more than MaxViewers is refused with the reason.
func TestViewerCap(t *testing.T) {
	s := startServer(t, newFakeSource(fakeSigs...), Options{MaxViewers: 2})
	a, b := dialViewer(t, s, nil), dialViewer(t, s, nil)
	a.waitMeta()
	b.waitMeta()
	c := dialViewer(t, s, nil)
	err := c.waitClosed()
	if websocket.CloseStatus(err) != websocket.StatusTryAgainLater || !strings.Contains(err.Error(), "at most 2") {
		t.Fatalf("third page: %v", err)
	}
	if st := s.ViewerStats(); st.Refused != 1 || st.Viewers != 2 {
		t.Fatalf("viewer stats %+v", st)
	}
	a.c.Close(websocket.StatusNormalClosure, "")
	eventually(t, "a free place", func() bool { return s.ViewerStats().Viewers == 1 })
	dialViewer(t, s, nil).waitMeta()
}

// TestViewerMessageTooBig: a message over MaxMessage closes the page.
func TestViewerMessageTooBig(t *testing.T) {
	s := startServer(t, newFakeSource(fakeSigs...), Options{MaxMessage: 512})
	v := dialViewer(t, s, nil)
	v.waitMeta()
	v.send(map[string]string{"type": "view", "junk": strings.Repeat("x", 600)})
	if err := v.waitClosed(); websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Fatalf("closed with %v", err)
	}
	eventually(t, "the drop counted", func() bool { return s.ViewerStats().Dropped == 1 })
}

// TestViewerWithoutAView: a page that reads the signal list but sends no
// view (not a scope page) is dropped after AckTimeout: two addresses could
// otherwise hold every viewer's place for good.
func TestViewerWithoutAView(t *testing.T) {
	s := startServer(t, newFakeSource(fakeSigs...), Options{AckTimeout: 300 * time.Millisecond})
	v := dialViewer(t, s, nil)
	v.waitMeta()
	if err := v.waitClosed(); websocket.CloseStatus(err) != websocket.StatusPolicyViolation || !strings.Contains(err.Error(), "sent no view") {
		t.Fatalf("closed with %v", err)
	}
	eventually(t, "the drop counted", func() bool { return s.ViewerStats().Dropped == 1 && s.ViewerStats().Viewers == 0 })
}

// TestDropsLogRateLimited: pages dropped in a burst make one log line a
// second at most, the next one counting those held back.
func TestDropsLogRateLimited(t *testing.T) {
	var logs testenv.Buffer
	s := startServerHTTP(t, newFakeSource(fakeSigs...), Options{MaxMessage: 512}, HTTPOptions{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	const n = 20
	start := time.Now()
	for range n {
		v := dialViewer(t, s, nil)
		v.waitMeta()
		v.send(map[string]string{"type": "view", "junk": strings.Repeat("x", 600)})
		v.waitClosed()
	}
	eventually(t, "the drops counted", func() bool { return s.ViewerStats().Dropped == n })
	// One line, then at most one per second the burst lasted.
	lines := strings.Count(logs.String(), `msg="viewer dropped"`)
	if most := 1 + int(time.Since(start)/dropLogEvery); lines < 1 || lines > most || lines >= n {
		t.Errorf("%d log lines for %d drops in %v (at most %d):\n%s", lines, n, time.Since(start), most, logs.String())
	}
	time.Sleep(dropLogEvery)
	v := dialViewer(t, s, nil)
	v.waitMeta()
	v.send(map[string]string{"type": "view", "junk": strings.Repeat("x", 600)})
	v.waitClosed()
	eventually(t, "the line after a second", func() bool { return strings.Contains(logs.String(), "dropped_unlogged_before=") })
}

// TestUnacknowledgingViewer: a page that takes frames but acknowledges none
// gets maxInFlight of them, then none, and is dropped after AckTimeout.
func TestUnacknowledgingViewer(t *testing.T) {
	src := newFakeSource(fakeSigs...)
	s := startServer(t, src, Options{AckTimeout: 300 * time.Millisecond})
	v := dialViewer(t, s, nil)
	v.noAck = true
	gen := v.waitMeta()
	v.send(liveView(gen, 1, traceRef{Sig: 0, Kind: "trace"}))
	stop := make(chan struct{})
	defer close(stop)
	go feed(src, stop)
	frames := 0
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	var err error
	for {
		var isFrame bool
		if _, isFrame, err = v.next(ctx); err != nil {
			break
		}
		if isFrame {
			frames++
		}
	}
	if frames != maxInFlight {
		t.Errorf("%d frames without acknowledgement, want %d", frames, maxInFlight)
	}
	if websocket.CloseStatus(err) != websocket.StatusPolicyViolation || !strings.Contains(err.Error(), "acknowledging") {
		t.Fatalf("closed with %v", err)
	}
	eventually(t, "the drop counted", func() bool { return s.ViewerStats().Dropped == 1 })
	if st := s.ViewerStats(); st.FramesHeld == 0 {
		t.Fatalf("viewer stats %+v", st)
	}
}

// feed pushes an update every millisecond until stop closes.
func feed(src *fakeSource, stop <-chan struct{}) {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for k := 0; ; k++ {
		select {
		case <-stop:
			return
		case <-t.C:
			select {
			case src.updates <- fakeUpdateAt(k):
			default:
			}
		}
	}
}

// TestStalledViewerIsDropped: a page whose connection stops taking data is
// dropped after WriteTimeout, while another page goes on receiving frames
// and the source never waits.
func TestStalledViewerIsDropped(t *testing.T) {
	big := Signal{Name: "Big", Type: "float64", Dims: "[8192]", Elements: 8192, Time: "t", WaveX: "index"}
	src := newFakeSource(big)
	s := startServer(t, src, Options{WriteTimeout: time.Second, AckTimeout: time.Hour})
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		times := make([]float64, 8192)
		for k := 0; ; k++ {
			vals := make([]float64, 8192)
			for i := range vals {
				vals[i] = float64(k + i)
			}
			select {
			case <-stop:
				return
			case src.updates <- fakeUpdate{vals: [][]float64{vals}, times: [][]float64{times}}:
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	// 32 waveforms of 8192 points: frames of 3 MiB, so two of them fill
	// what the kernel buffers between a server and a page that stops.
	waves := make([]traceRef, MaxTraces)
	for i := range waves {
		waves[i] = traceRef{Sig: 0, Kind: "wave"}
	}
	view := viewMsg{Type: "view", Live: true, From: -1, To: 0, Cols: MaxColumns, Traces: waves}

	// The stalled page: a fixed receive buffer (no autotuning), and it
	// stops reading after its first frame, which it acknowledges so that
	// the server may send more.
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			c.(*net.TCPConn).SetReadBuffer(64 << 10)
		}
		return c, err
	}}
	stalled := dialViewer(t, s, &websocket.DialOptions{HTTPClient: &http.Client{Transport: tr}})
	view.Gen = stalled.waitMeta()
	stalled.send(view)
	stalled.until("one frame", func(_ Frame, ok bool) bool { return ok })

	good := dialViewer(t, s, nil)
	good.waitMeta()
	good.send(liveView(view.Gen, 1, traceRef{Sig: 0, Kind: "wave"}))
	before := src.pushed.Load()
	frames := 0
	good.until("the stalled page dropped, with frames meanwhile", func(_ Frame, ok bool) bool {
		if ok {
			frames++
		}
		return s.ViewerStats().Dropped == 1 && frames >= 5
	})
	if src.pushed.Load() == before {
		t.Fatal("the source stopped while a page stalled")
	}
}

// TestHTTPBounds: a request whose header never ends is cut off after the
// header timeout, and a WebSocket outlives the HTTP read and write timeouts.
func TestHTTPBounds(t *testing.T) {
	saved := httpBounds
	defer func() { httpBounds = saved }()
	httpBounds.readHeader, httpBounds.read, httpBounds.write = 200*time.Millisecond, 300*time.Millisecond, 300*time.Millisecond
	src := newFakeSource(fakeSigs...)
	s := startServer(t, src, Options{})

	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n")) // never finished
	c.SetReadDeadline(time.Now().Add(waitFor))
	if _, err := bufio.NewReader(c).ReadString('\n'); err == nil || errors.Is(err, context.DeadlineExceeded) {
		// The server answers 408 or closes; either ends the read before waitFor.
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatal("the server kept a request with an endless header")
		}
	}

	v := dialViewer(t, s, nil)
	gen := v.waitMeta()
	v.send(liveView(gen, 1, traceRef{Sig: 0, Kind: "trace"}))
	stop := make(chan struct{})
	defer close(stop)
	go feed(src, stop)
	deadline := time.Now().Add(4 * httpBounds.write)
	v.until("frames past the HTTP timeouts", func(_ Frame, ok bool) bool { return ok && time.Now().After(deadline) })
}

// TestHTTPSlowReaderIsCut: a client that sends requests and never reads
// their responses is cut off once a response has waited the write timeout
// for room in the socket: 300 pipelined requests for the page's script
// (32 KiB each) behind a 4 KiB buffer.
func TestHTTPSlowReaderIsCut(t *testing.T) {
	saved := httpBounds
	defer func() { httpBounds = saved }()
	httpBounds.write = 300 * time.Millisecond
	s := startServer(t, newFakeSource(fakeSigs...), Options{})
	const n = 300
	if got := testenv.PipelineUnread(t, s.addr, "GET /static/scope.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", n); got >= n {
		t.Fatalf("all %d responses came: the write timeout never cut the connection", got)
	}
}

// TestStatusJSON: /status.json carries the counters a script can read.
func TestStatusJSON(t *testing.T) {
	src := newFakeSource(fakeSigs...)
	s := startServer(t, src, Options{StatsInterval: 20 * time.Millisecond})
	src.updates <- fakeUpdateAt(1)
	eventually(t, "the update counted", func() bool {
		_, body := testenv.HTTPGet(t, s.url+"status.json")
		var m statsMsg
		return json.Unmarshal([]byte(body), &m) == nil && m.Counters.Updates == 1 && m.LastUpdateS >= 0
	})
}

// TestElementTracesBounded: at most MaxElementTraces elements are recorded
// at once; one unused for a while gives its place to a new one.
func TestElementTracesBounded(t *testing.T) {
	h := NewHub(Limits{MaxElementTraces: 2}, quietLog())
	h.Configure(Info{}, fakeSigs)
	for _, k := range []int{0, 1, 1} {
		if err := h.ensureElement(1, 2, k); err != nil {
			t.Fatalf("element %d: %v", k, err)
		}
	}
	if err := h.ensureElement(1, 2, 3); !errors.Is(err, errElementsBusy) {
		t.Fatalf("a third element: %v", err)
	}
	h.mu.Lock()
	h.elems[0].used.Store(time.Now().Add(-2 * elementIdleBefore).UnixNano())
	h.mu.Unlock()
	if err := h.ensureElement(1, 2, 3); err != nil {
		t.Fatalf("in the idle one's place: %v", err)
	}
	if h.elementSeries(2, 0) != nil || h.elementSeries(2, 3) == nil || len(h.elems) != 2 {
		t.Fatal("the idle element was not replaced")
	}
	for _, c := range [][3]int{{2, 1, 0}, {1, 0, 0}, {1, 2, 4}, {1, 9, 0}} { // other generation, scalar, out of range
		if err := h.ensureElement(uint64(c[0]), c[1], c[2]); !errors.Is(err, errNoSuchElement) {
			t.Errorf("ensureElement(%v): %v", c, err)
		}
	}
}
