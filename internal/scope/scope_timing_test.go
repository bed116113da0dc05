//go:build unix

package scope_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/streamerd/streamerd/internal/scope"
	"github.com/streamerd/streamerd/internal/testenv"
)

// The benchmark measures the scope alone: streamerd (the producer) and the
// pages (Go WebSocket clients that acknowledge every frame, as the page
// does) run in child processes, so the benchmark process's CPU time is the
// scope's.

// childEnv selects what the test binary does when the benchmark starts it.
const childEnv = "STREAMERD_SCOPE_BENCH_CHILD"

// benchDuration is the measured interval: STREAMERD_BENCH_SUSTAIN, or 2 s.
func benchDuration(tb testing.TB) time.Duration {
	if v := os.Getenv("STREAMERD_BENCH_SUSTAIN"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			tb.Fatalf("STREAMERD_BENCH_SUSTAIN=%q: want a positive duration", v)
		}
		return d
	}
	return 2 * time.Second
}

// BenchmarkScope runs the scope on configs/burst.toml (1000 updates/s of
// 1000 samples at 1 MS/s, 4 KB each) with 1 and 8 pages showing Ch1 over
// a 5 s window, 1000 columns wide. Reported: frames/s delivered to each page
// (acknowledged), the updates/s the scope received, the scope's CPU (% of
// one core) and that CPU per 1000 updates/s, frame-MB/s sent to all
// pages, and lost: updates the scope's own session lost (must be 0).
func BenchmarkScope(b *testing.B) {
	for _, n := range []int{1, 8} {
		b.Run("burst/viewers="+strconv.Itoa(n), func(b *testing.B) { benchScope(b, n) })
	}
}

func benchScope(b *testing.B, viewers int) {
	d := benchDuration(b)
	prod := startChild(b, "producer")
	port := prod.line(b, "port")
	src := &scope.UDPStreamer{Server: "127.0.0.1:" + port}
	s, url := startScope(b, src, scope.Options{MaxViewers: 64})
	testenv.Eventually(b, "updates", pageWait, func() bool { return src.Counters().Updates > 100 })
	pages := startChild(b, "viewers", url, strconv.Itoa(viewers))
	pages.line(b, "ready")
	time.Sleep(d) // every page at its steady rate, the window filling
	var frames, updates, cpu, mb, lost float64
	n := 0
	for b.Loop() {
		r0, c0, v0, t0 := testenv.CPUTime(), src.Counters(), s.ViewerStats(), time.Now()
		time.Sleep(d)
		r1, c1, v1, el := testenv.CPUTime(), src.Counters(), s.ViewerStats(), time.Since(t0).Seconds()
		frames += float64(v1.FramesAcked-v0.FramesAcked) / el / float64(viewers)
		updates += float64(c1.Updates-c0.Updates) / el
		cpu += (r1 - r0).Seconds() / el * 100
		mb += float64(v1.FrameBytes-v0.FrameBytes) / el / 1e6
		lost += float64(c1.Lost - c0.Lost)
		n++
	}
	nf := float64(n)
	b.ReportMetric(frames/nf, "frames/s")
	b.ReportMetric(updates/nf, "updates/s")
	b.ReportMetric(cpu/nf, "cpu-%")
	b.ReportMetric(cpu/nf/(updates/nf/1000), "cpu-%-per-1k-updates/s")
	b.ReportMetric(mb/nf, "frame-MB/s")
	b.ReportMetric(lost, "lost")
}

// child is the test binary run as a benchmark's helper. It ends when its
// standard input closes.
type child struct {
	cmd   *exec.Cmd
	out   *bufio.Scanner
	stdin io.Closer
}

func startChild(tb testing.TB, role string, args ...string) *child {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBenchChild$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+role+" "+strings.Join(args, " "))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	c := &child{cmd: cmd, out: bufio.NewScanner(stdout), stdin: stdin}
	tb.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { io.Copy(io.Discard, stdout); cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(pageWait):
			cmd.Process.Kill()
			<-done
		}
	})
	return c
}

// line waits for the child's line "key value" and returns the value.
func (c *child) line(tb testing.TB, key string) string {
	tb.Helper()
	for c.out.Scan() {
		if k, v, _ := strings.Cut(c.out.Text(), " "); k == key {
			return v
		}
	}
	tb.Fatalf("the child ended before saying %q", key)
	return ""
}

// TestBenchChild is the benchmark's child process; it does nothing in a
// plain test run.
func TestBenchChild(t *testing.T) {
	role, arg, _ := strings.Cut(os.Getenv(childEnv), " ")
	switch role {
	case "producer":
		a := startApp(t, "burst.toml", "Port = 44500", udpsPort(testenv.FreeUDPPort(t)))
		_, port, _ := strings.Cut(streamerAddr(a), ":")
		fmt.Println("port", port)
	case "viewers":
		url, n, _ := strings.Cut(arg, " ")
		count, _ := strconv.Atoi(n)
		runViewers(t, url, count)
	default:
		t.Skip("only the benchmark's child process")
	}
	io.Copy(io.Discard, os.Stdin) // until the benchmark closes it
}

// runViewers connects n pages that show Ch1 over 5 s, acknowledge every
// frame, and keep doing so in the background; it prints "ready" once each
// has had a frame.
func runViewers(t *testing.T, url string, n int) {
	var ready sync.WaitGroup
	var first atomic.Int32
	for range n {
		ready.Add(1)
		go func() {
			ctx := context.Background()
			c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"ws", nil)
			if err != nil {
				fmt.Fprintln(os.Stderr, "viewer:", err)
				os.Exit(1)
			}
			c.SetReadLimit(64 << 20)
			got := false
			for {
				typ, data, err := c.Read(ctx)
				if err != nil {
					return
				}
				if typ == websocket.MessageText {
					var m struct {
						Type string `json:"type"`
						Gen  uint64 `json:"gen"`
					}
					json.Unmarshal(data, &m)
					if m.Type == "meta" && m.Gen > 0 {
						view := fmt.Sprintf(`{"type":"view","gen":%d,"vid":1,"live":true,"from":-5,"to":0,"cols":1000,"traces":[{"sig":1,"kind":"trace"}]}`, m.Gen)
						c.Write(ctx, websocket.MessageText, []byte(view))
					}
					continue
				}
				f, err := scope.ParseFrame(data)
				if err != nil {
					fmt.Fprintln(os.Stderr, "viewer:", err)
					os.Exit(1)
				}
				c.Write(ctx, websocket.MessageText, []byte(`{"type":"ack","seq":`+strconv.FormatUint(uint64(f.Seq), 10)+`}`))
				if !got && len(f.Traces) == 1 {
					got = true
					first.Add(1)
					ready.Done()
				}
			}
		}()
	}
	ready.Wait()
	fmt.Println("ready", first.Load())
}
