package rd100s

import (
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/dstest"
	client "github.com/streamerd/streamerd/internal/rd100slink"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/rt/cpu"
)

func TestLifecycleErrors(t *testing.T) {
	r := newRx(t, client.MonitorConfig{NominalRate: 500})
	cfg := testConfig(500)
	cfg.DestPort = r.port()
	dstest.Opener(t, func() datasource.DataSource {
		e, err := New(cfg, metrics.NewSet(), discard())
		if err != nil {
			t.Fatal(err)
		}
		return e
	})

	// An impossible CPU mask fails the thread start; Close stays safe.
	if runtime.NumCPU() < 64 {
		cfg.CPUMask = cpu.Of(63)
		e := startEnc(t, cfg, r)
		if err := e.PrepareNextState(); err == nil || !strings.Contains(err.Error(), "network thread") {
			t.Errorf("CPU 63: %v", err)
		}
		if err := e.Close(); err != nil {
			t.Errorf("Close after a failed start: %v", err)
		}
	}

	// src_port binds the given port; a second PrepareNextState fails.
	probe := testenv.Loopback(t)
	port := probe.LocalAddr().(*net.UDPAddr).Port
	probe.Close()
	cfg.CPUMask = 0
	cfg.SrcPort = port
	e := startEnc(t, cfg, r)
	run(t, e)
	if got := e.localAddr().Port(); got != uint16(port) {
		t.Errorf("bound to port %d, want %d", got, port)
	}
	if err := e.PrepareNextState(); !errors.Is(err, datasource.ErrStarted) {
		t.Errorf("second PrepareNextState: %v", err)
	}
	waitTicks(t, e, 5)
	if err := e.Close(); err != nil {
		t.Error(err)
	}
	if st := e.snapshot(); st.Running || st.PacketsSent == 0 || st.Name != "Enc" || st.Class != "RD100S" {
		t.Errorf("status after stop %+v", st)
	}
}

// TestSynchroniseCountsEveryCall checks synchronise_total counts every
// call, a lock timeout too, as in every producer.
func TestSynchroniseCountsEveryCall(t *testing.T) {
	r := newRx(t, client.MonitorConfig{NominalRate: 500})
	e := startEnc(t, testConfig(500), r)
	if err := e.lock.FastLock(time.Second, 0); err != nil {
		t.Fatal(err)
	}
	if err := e.Synchronise(); !errors.Is(err, datasource.ErrCycleSkipped) {
		t.Errorf("Synchronise with the lock held: %v", err)
	}
	e.lock.FastUnLock()
	if err := e.Synchronise(); err != nil {
		t.Fatal(err)
	}
	if s, l := e.m.synchronised.Get(), e.m.lockTimeouts.Get(); s != 2 || l != 1 {
		t.Errorf("synchronise_total %d, lock_timeouts_total %d; want 2, 1", s, l)
	}
}

// newProducer is the Encoder of the lifecycle tests: one name, sending at
// the fastest rate (its network thread sees a stop within 100 µs) to a
// loopback port nobody reads, ms as given (nil: its own), no logger.
func newProducer(tb testing.TB, ms *metrics.Set) dstest.Producer {
	cfg := testConfig(maxRateHz)
	cfg.DestPort = 9 // discard
	e, err := New(cfg, ms, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

func TestMisuseLifecycle(t *testing.T) {
	dstest.Misuse(t, newProducer)
}

func TestRestartSameNameSameMetrics(t *testing.T) {
	dstest.Restart(t, newProducer, 1000)
}
