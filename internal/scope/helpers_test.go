package scope

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/streamerd/streamerd/internal/testenv"
)

// waitFor is how long a test waits for something that should happen at
// once; it bounds a hang, it is never a timing assertion.
const waitFor = 15 * time.Second

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// fakeSource pushes the updates a test hands it.
type fakeSource struct {
	sigs    []Signal
	updates chan fakeUpdate
	pushed  atomic.Uint64
}

type fakeUpdate struct {
	vals, times [][]float64
	gap         bool
}

func (u fakeUpdate) Values(i int) []float64 { return u.vals[i] }
func (u fakeUpdate) Times(i int) []float64  { return u.times[i] }

func newFakeSource(sigs ...Signal) *fakeSource {
	return &fakeSource{sigs: sigs, updates: make(chan fakeUpdate, 1024)}
}

func (f *fakeSource) Info() Info { return Info{Kind: "fake", Address: "test"} }

func (f *fakeSource) Counters() Counters { return Counters{Updates: f.pushed.Load()} }

func (f *fakeSource) Run(ctx context.Context, h *Hub) error {
	h.Configure(f.Info(), f.sigs)
	h.SetStatus(StateReceiving, "")
	for {
		select {
		case <-ctx.Done():
			return nil
		case u := <-f.updates:
			h.push(u, u.gap)
			f.pushed.Add(1)
		}
	}
}

// scalar is a scalar update of n signals, all at time t.
func scalar(t float64, vals ...float64) fakeUpdate {
	u := fakeUpdate{}
	for _, v := range vals {
		u.vals = append(u.vals, []float64{v})
		u.times = append(u.times, []float64{t})
	}
	return u
}

// testServer is a Server on a loopback port.
type testServer struct {
	*Server
	url  string // http://host:port/
	addr string
}

func startServer(t *testing.T, src Source, opts Options) *testServer {
	t.Helper()
	return startServerHTTP(t, src, opts, HTTPOptions{Log: quietLog()})
}

// startServerHTTP is startServer with ho around the handler; the scope
// logs to ho.Log.
func startServerHTTP(t *testing.T, src Source, opts Options, ho HTTPOptions) *testServer {
	t.Helper()
	s := New(src, opts, ho.Log)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { Serve(ctx, ln, s, ho) })
	wg.Go(func() { s.Run(ctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return &testServer{Server: s, url: "http://" + ln.Addr().String() + "/", addr: ln.Addr().String()}
}

// testViewer is a Go page: it reads the server's messages and, unless
// told not to, acknowledges every frame as the page does.
type testViewer struct {
	t       *testing.T
	c       *websocket.Conn
	noAck   bool
	meta    metaMsg
	stats   statsMsg
	notices []string
}

func dialViewer(t *testing.T, s *testServer, opts *websocket.DialOptions) *testViewer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+s.addr+"/ws", opts)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(64 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return &testViewer{t: t, c: c}
}

func (v *testViewer) send(m any) {
	v.t.Helper()
	b, _ := json.Marshal(m)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := v.c.Write(ctx, websocket.MessageText, b); err != nil {
		v.t.Fatal(err)
	}
}

// next reads one message: a frame is returned parsed (and acknowledged),
// a text message is recorded and returns a zero frame with ok false.
func (v *testViewer) next(ctx context.Context) (f Frame, ok bool, err error) {
	typ, data, err := v.c.Read(ctx)
	if err != nil {
		return Frame{}, false, err
	}
	if typ == websocket.MessageBinary {
		f, err := ParseFrame(data)
		if err != nil {
			return Frame{}, false, err
		}
		if !v.noAck {
			b, _ := json.Marshal(clientMsg{Type: "ack", Seq: f.Seq})
			if err := v.c.Write(ctx, websocket.MessageText, b); err != nil {
				return Frame{}, false, err
			}
		}
		return f, true, nil
	}
	var head struct{ Type, Message string }
	json.Unmarshal(data, &head)
	switch head.Type {
	case "meta":
		v.meta = metaMsg{}
		err = json.Unmarshal(data, &v.meta)
	case "stats":
		err = json.Unmarshal(data, &v.stats)
	case "notice":
		v.notices = append(v.notices, head.Message)
	}
	return Frame{}, false, err
}

// until reads messages until cond holds after one of them.
func (v *testViewer) until(what string, cond func(f Frame, isFrame bool) bool) Frame {
	v.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	for {
		f, isFrame, err := v.next(ctx)
		if err != nil {
			v.t.Fatalf("waiting for %s: %v", what, err)
		}
		if cond(f, isFrame) {
			return f
		}
	}
}

// waitMeta waits for a meta message with signals and returns its generation.
func (v *testViewer) waitMeta() uint64 {
	v.t.Helper()
	v.until("the signal list", func(Frame, bool) bool { return len(v.meta.Signals) > 0 })
	return v.meta.Gen
}

// liveView asks for a live window of the given traces.
func liveView(gen uint64, window float64, traces ...traceRef) viewMsg {
	return viewMsg{Type: "view", Gen: gen, Live: true, From: -window, To: 0, Cols: 400, Traces: traces}
}

// waitClosed reads until the connection ends and returns its close error.
func (v *testViewer) waitClosed() error {
	v.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	for {
		if _, _, err := v.c.Read(ctx); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				v.t.Fatal("the server did not close the connection")
			}
			return err
		}
	}
}

// eventually polls cond until it holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testenv.Eventually(t, what, waitFor, cond)
}

// shortBackoff makes a source retry after 20 ms instead of minBackoff for
// the rest of the test.
func shortBackoff(t *testing.T) {
	saved := minBackoff
	minBackoff = 20 * time.Millisecond
	t.Cleanup(func() { minBackoff = saved })
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
