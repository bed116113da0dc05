// Package dstest checks, for the producers' tests, what the DataSource contract asks of every producer: the lifecycle, each misuse met with an error, and restarts that leak nothing (test-only: only _test.go files import it).
package dstest

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/testenv"
)

// Producer is what every producer of this module offers: the DataSource
// contract, the Go-shaped Start, the metrics set it registered in, and its
// Internals (its Open step among them).
type Producer interface {
	datasource.DataSource
	Start(ctx context.Context) error
	Metrics() *metrics.Set
	Internals() any
}

// open runs ds's Open step: its own (a Replay's) or its Internals' (a
// producer's).
func open(ds any) error {
	if op, ok := ds.(interface{ Open() error }); ok {
		return op.Open()
	}
	o, ok := ds.(interface{ Internals() any })
	if !ok {
		return errors.New("no Internals")
	}
	op, ok := o.Internals().(interface{ Open() error })
	if !ok {
		return errors.New("no Open step")
	}
	return op.Open()
}

// NewFunc makes a fresh producer, always of the same name, registering
// its metrics in ms (nil: its own set) and logging nowhere (a nil
// logger); it fails tb when New fails.
type NewFunc func(tb testing.TB, ms *metrics.Set) Producer

// Start allocates ds's memory and starts it, as an application does,
// failing tb on an error; ds is closed when tb ends.
func Start(tb testing.TB, ds datasource.DataSource) {
	tb.Helper()
	if err := ds.AllocateMemory(); err != nil {
		tb.Fatal(err)
	}
	if err := ds.PrepareNextState(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ds.Close() })
}

// misuse is one call made out of order, twice, after Close or with a bad
// argument: run drives a fresh producer there and returns the error of the
// misplaced call, which must match want (any error when want is errAny,
// none when want is nil: a documented no-op).
type misuse struct {
	name string
	run  func(tb testing.TB, p Producer) error
	want error
}

var errAny = errors.New("any error")

// must fails tb when err is not nil: a step of a case that is no misuse.
func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

func started(tb testing.TB, p Producer) {
	tb.Helper()
	must(tb, p.Start(context.Background()))
}

var misuses = []misuse{
	{"Synchronise before AllocateMemory", func(_ testing.TB, p Producer) error { return p.Synchronise() }, datasource.ErrNotAllocated},
	{"GetSignalMemoryBuffer before AllocateMemory", func(_ testing.TB, p Producer) error { _, err := p.GetSignalMemoryBuffer(0); return err }, datasource.ErrNotAllocated},
	{"Open before AllocateMemory", func(_ testing.TB, p Producer) error { return open(p) }, datasource.ErrNotAllocated},
	{"PrepareNextState before AllocateMemory", func(_ testing.TB, p Producer) error { return p.PrepareNextState() }, datasource.ErrNotAllocated},
	{"AllocateMemory twice", func(tb testing.TB, p Producer) error {
		must(tb, p.AllocateMemory())
		return p.AllocateMemory()
	}, datasource.ErrAllocatedTwice},
	{"AllocateMemory after Start", func(tb testing.TB, p Producer) error {
		started(tb, p)
		return p.AllocateMemory()
	}, datasource.ErrAllocatedTwice},
	{"GetSignalMemoryBuffer of signal -1", func(tb testing.TB, p Producer) error {
		must(tb, p.AllocateMemory())
		_, err := p.GetSignalMemoryBuffer(-1)
		return err
	}, datasource.ErrUnknownSignal},
	{"GetSignalMemoryBuffer past the last signal", func(tb testing.TB, p Producer) error {
		must(tb, p.AllocateMemory())
		_, err := p.GetSignalMemoryBuffer(len(p.Signals()))
		return err
	}, datasource.ErrUnknownSignal},
	{"Open twice", func(tb testing.TB, p Producer) error {
		must(tb, p.AllocateMemory())
		must(tb, open(p))
		return open(p)
	}, datasource.ErrStarted},
	{"PrepareNextState twice", func(tb testing.TB, p Producer) error {
		must(tb, p.AllocateMemory())
		must(tb, p.PrepareNextState())
		return p.PrepareNextState()
	}, datasource.ErrStarted},
	{"Start twice", func(tb testing.TB, p Producer) error {
		started(tb, p)
		return p.Start(context.Background())
	}, datasource.ErrStarted},
	{"Open after Start", func(tb testing.TB, p Producer) error {
		started(tb, p)
		return open(p)
	}, datasource.ErrStarted},
	{"Start after PrepareNextState", func(tb testing.TB, p Producer) error {
		must(tb, p.AllocateMemory())
		must(tb, p.PrepareNextState())
		return p.Start(context.Background())
	}, datasource.ErrStarted},
	{"Start with a nil context", func(_ testing.TB, p Producer) error {
		var ctx context.Context // a nil interface, as a caller's zero value
		return p.Start(ctx)
	}, errAny},
	{"Start with a context already cancelled", func(_ testing.TB, p Producer) error {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return p.Start(ctx)
	}, context.Canceled},
	{"Close twice", func(tb testing.TB, p Producer) error {
		started(tb, p)
		must(tb, p.Close())
		return p.Close()
	}, nil},
	{"Close before AllocateMemory", func(_ testing.TB, p Producer) error { return p.Close() }, nil},
	{"Synchronise after Close", func(tb testing.TB, p Producer) error {
		started(tb, p)
		must(tb, p.Close())
		return p.Synchronise()
	}, datasource.ErrClosed},
	{"GetSignalMemoryBuffer after Close", func(tb testing.TB, p Producer) error {
		started(tb, p)
		must(tb, p.Close())
		_, err := p.GetSignalMemoryBuffer(0)
		return err
	}, datasource.ErrClosed},
	{"Start after Close", func(tb testing.TB, p Producer) error {
		started(tb, p)
		must(tb, p.Close())
		return p.Start(context.Background())
	}, datasource.ErrClosed},
	{"PrepareNextState after Close", func(tb testing.TB, p Producer) error {
		must(tb, p.AllocateMemory())
		must(tb, p.Close())
		return p.PrepareNextState()
	}, datasource.ErrClosed},
	{"Open after Close", func(tb testing.TB, p Producer) error {
		must(tb, p.AllocateMemory())
		must(tb, p.Close())
		return open(p)
	}, datasource.ErrClosed},
	{"AllocateMemory after a Close before it", func(tb testing.TB, p Producer) error {
		must(tb, p.Close())
		return p.AllocateMemory()
	}, datasource.ErrClosed},
	{"Synchronise after the context of Start is cancelled", func(tb testing.TB, p Producer) error {
		ctx, cancel := context.WithCancel(context.Background())
		must(tb, p.Start(ctx))
		cancel()
		var err error
		testenv.Eventually(tb, "the cancelled context to close the producer", 10*time.Second, func() bool {
			err = p.Synchronise()
			return err != nil
		})
		return err
	}, datasource.ErrClosed},
	{"Close from another goroutine while Synchronise runs", func(tb testing.TB, p Producer) error {
		started(tb, p)
		done := make(chan error)
		go func() {
			for {
				// A lock timeout (the network thread held the lock too
				// long on a loaded machine) is a skipped cycle, not the end.
				if err := p.Synchronise(); errors.Is(err, datasource.ErrClosed) {
					done <- err
					return
				}
				runtime.Gosched()
			}
		}()
		time.Sleep(time.Millisecond)
		must(tb, p.Close())
		return testenv.Receive(tb, done, 10*time.Second, "Synchronise to see the Close")
	}, datasource.ErrClosed},
}

// Misuse runs every misuse of the lifecycle on a fresh producer from
// newP each, with a nil metrics set and logger: each must return its
// error (errors.Is) and none may panic. It then checks that Synchronise
// after Close returns ErrClosed without allocating.
func Misuse(t *testing.T, newP NewFunc) {
	for _, m := range misuses {
		t.Run(m.name, func(t *testing.T) {
			p := newP(t, nil)
			defer p.Close()
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panicked: %v", r)
					}
				}()
				err = m.run(t, p)
			}()
			switch {
			case m.want == nil && err != nil:
				t.Errorf("%v, want nil", err)
			case m.want == nil:
			case err == nil:
				t.Errorf("no error, want %v", m.want)
			case m.want != errAny && !errors.Is(err, m.want):
				t.Errorf("%v, want %v", err, m.want)
			case !strings.Contains(err.Error(), strconv.Quote(p.Name())):
				t.Errorf("%q does not name the datasource %q", err, p.Name())
			}
		})
	}
	t.Run("Synchronise after Close allocates nothing", func(t *testing.T) {
		testenv.SkipIfRace(t)
		p := newP(t, nil)
		started(t, p)
		must(t, p.Close())
		if n := testing.AllocsPerRun(1000, func() { _ = p.Synchronise() }); n != 0 {
			t.Errorf("%v allocations", n)
		}
	})
}

// Restart makes, starts, synchronises and closes a producer of the same
// name n times on one metrics set, and checks that nothing grows: the
// goroutines, the open file descriptors (where /proc/self/fd lists them),
// the live heap, and the metric series of the set.
func Restart(t *testing.T, newP NewFunc, n int) {
	ms := metrics.NewSet()
	series := 0 // while a producer runs
	cycle := func() {
		p := newP(t, ms)
		must(t, p.Start(context.Background()))
		for range 3 {
			// A lock timeout on a loaded machine is a skipped cycle;
			// a lifecycle error is a failure.
			if err := p.Synchronise(); errors.Is(err, datasource.ErrClosed) || errors.Is(err, datasource.ErrNotAllocated) {
				t.Fatal(err)
			}
		}
		series = len(ms.ListMetricNames())
		must(t, p.Close())
	}
	for range 20 { // warm up: the runtime's thread pool, first-use allocations
		cycle()
	}
	if series == 0 {
		t.Fatal("a running producer has no metric in the set it was given")
	}
	g0, fd0, heap0, series0 := settle(t, 0), fds(), heap(), len(ms.ListMetricNames())
	for range n {
		cycle()
	}
	g1 := settle(t, g0)
	fd1, heap1, series1 := fds(), heap(), len(ms.ListMetricNames())
	t.Logf("%d restarts: goroutines %d → %d, fds %d → %d, heap %d → %d bytes, metric series %d → %d (%d while one runs)", n, g0, g1, fd0, fd1, heap0, heap1, series0, series1, series)
	if g1 > g0 {
		t.Errorf("goroutines grew from %d to %d", g0, g1)
	}
	if fd1 > fd0 {
		t.Errorf("file descriptors grew from %d to %d", fd0, fd1)
	}
	if series1 != series0 {
		t.Errorf("metric series: %d, then %d after the restarts (%d while one runs)", series0, series1, series)
	}
	// A leak of a socket buffer or a ring per restart would be megabytes;
	// 256 KiB is the garbage collector's noise.
	if heap1 > heap0+256<<10 {
		t.Errorf("live heap grew from %d to %d bytes", heap0, heap1)
	}
}

// settle returns the number of goroutines once it stops falling to want
// (goroutines of a closed producer finish just after Close returns).
func settle(tb testing.TB, want int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(5 * time.Second); n > want && want > 0 && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(time.Millisecond)
	}
	return n
}

// fds returns the number of open file descriptors, or 0 where
// /proc/self/fd does not list them.
func fds() int {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	return len(es)
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Opener drives two datasources from newDS, each fresh from its New,
// through the Open step (datasource.DataSource): Open before AllocateMemory fails,
// Open twice fails, Close after Open alone returns (closing the sockets
// without a network thread to stop), and PrepareNextState after Open
// starts without opening again. It leaves both closed.
func Opener(t testing.TB, newDS func() datasource.DataSource) {
	t.Helper()
	for _, prepare := range []bool{false, true} {
		o := newDS()
		if err := open(o); !errors.Is(err, datasource.ErrNotAllocated) {
			t.Errorf("Open before AllocateMemory: %v, want %v", err, datasource.ErrNotAllocated)
		}
		if err := o.AllocateMemory(); err != nil {
			t.Fatal(err)
		}
		if err := open(o); err != nil {
			t.Fatal(err)
		}
		if err := open(o); !errors.Is(err, datasource.ErrStarted) {
			t.Errorf("second Open: %v, want %v", err, datasource.ErrStarted)
		}
		if prepare {
			if err := o.PrepareNextState(); err != nil {
				t.Fatalf("PrepareNextState after Open: %v", err)
			}
			if err := o.PrepareNextState(); !errors.Is(err, datasource.ErrStarted) {
				t.Errorf("second PrepareNextState: %v, want %v", err, datasource.ErrStarted)
			}
		}
		if err := o.Close(); err != nil {
			t.Errorf("Close (prepared %v): %v", prepare, err)
		}
	}
}
