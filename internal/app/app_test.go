package app

import (
	"encoding/json"
	"io/fs"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/configs"
	"github.com/streamerd/streamerd/internal/testenv"
)

// TestStopLeavesNoGoroutine builds and runs every example configuration
// briefly and checks that Stop returns every goroutine it started: the RT
// threads, the network threads, the receive goroutines, HTTP and the
// metrics publisher.
func TestStopLeavesNoGoroutine(t *testing.T) {
	names, _ := fs.Glob(configs.FS, "*.toml")
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			f := exampleFile(t, name)
			before := runtime.NumGoroutine()
			a, ms := startFile(t, f)
			time.Sleep(100 * time.Millisecond)
			checkLabelSets(t, ms)
			t0 := time.Now()
			if err := a.Stop(); err != nil {
				t.Fatal(err)
			}
			t.Logf("Stop took %v", time.Since(t0))
			deadline := time.Now().Add(2 * time.Second)
			for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > before {
				buf := make([]byte, 1<<16)
				t.Fatalf("%d goroutines before, %d after Stop:\n%s", before, n, buf[:runtime.Stack(buf, true)])
			}
		})
	}
}

// TestGarbageAtProducerPorts sends datagrams of every malformed shape to
// the sending sockets of the RD100S and FlatUDP producers (they read
// nothing; the kernel queues and drops): the streams go on untouched.
func TestGarbageAtProducerPorts(t *testing.T) {
	for _, name := range []string{"rd100s.toml", "flatudp.toml"} {
		t.Run(name, func(t *testing.T) {
			a, _ := startFile(t, exampleFile(t, name))
			ds := a.sources[0].ds
			port := internalsOf(ds).(interface{ LocalAddr() netip.AddrPort }).LocalAddr().Port()
			sent := func() uint64 {
				b, err := json.Marshal(statusOf(ds))
				if err != nil {
					t.Fatal(err)
				}
				var st struct {
					Packets   uint64 `json:"packets_sent"`   // RD100S
					Datagrams uint64 `json:"datagrams_sent"` // FlatUDP
				}
				if err := json.Unmarshal(b, &st); err != nil {
					t.Fatal(err)
				}
				return st.Packets + st.Datagrams
			}
			g := testenv.Loopback(t)
			dst := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port)
			before := sent()
			for _, b := range [][]byte{{}, {0x44, 0x52}, make([]byte, 36), make([]byte, 17), make([]byte, 65000)} {
				for i := 0; i < 50; i++ {
					g.WriteToUDPAddrPort(b, dst)
				}
			}
			deadline := time.Now().Add(5 * time.Second)
			for sent() < before+20 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if sent() < before+20 {
				t.Errorf("stream stalled after garbage: %d → %d", before, sent())
			}
		})
	}
}

// TestProducersReportAndDescribe: every producer reports its status and
// sums up its datagrams, through its Internals.
func TestProducersReportAndDescribe(t *testing.T) {
	for _, name := range []string{"app.toml", "rd100s.toml", "flatudp.toml"} {
		a, _ := startFile(t, exampleFile(t, name))
		for _, s := range a.sources {
			if _, ok := internalsOf(s.ds).(statusReporter); !ok {
				t.Errorf("%s: %s has no status", name, s.cfg.Name)
			}
			if d, ok := describerOf(s.ds); !ok || d.Describe() == "" {
				t.Errorf("%s: %s has no description", name, s.cfg.Name)
			}
		}
	}
}

// checkLabelSets fails when a metric name is exported with two sets of
// label names: a sum over the name would count the same events twice.
func checkLabelSets(t *testing.T, ms *metrics.Set) {
	t.Helper()
	var b strings.Builder
	ms.WritePrometheus(&b)
	keys := map[string]string{} // metric name → its label names
	for _, line := range strings.Split(b.String(), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		series, _, _ := strings.Cut(line, " ")
		name, labels, _ := strings.Cut(series, "{")
		var names []string
		for _, kv := range strings.Split(strings.TrimSuffix(labels, "}"), ",") {
			if k, _, ok := strings.Cut(kv, "="); ok {
				names = append(names, k)
			}
		}
		if name == "" || strings.HasSuffix(name, "_bucket") {
			continue // histogram buckets add vmrange
		}
		got := strings.Join(names, ",")
		if prev, ok := keys[name]; ok && prev != got {
			t.Errorf("%s has label sets {%s} and {%s}", name, prev, got)
		}
		keys[name] = got
	}
}
