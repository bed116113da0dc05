package rtsync

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
)

// within returns f's error, failing the test if f has not returned within
// 10 s (a wait that should not have been one).
func within(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("still waiting after 10 s")
		return nil
	}
}

func TestFastLockBasics(t *testing.T) {
	var l FastLock
	if !l.tryLock() || l.tryLock() {
		t.Fatal("tryLock on zero value misbehaves")
	}
	if err := l.FastLock(0, 0); !errors.Is(err, ErrTimeout) {
		t.Fatalf("FastLock(0) on held lock = %v", err)
	}
	// A deadline already past (time.Until of it) is one attempt, not Forever.
	if err := within(t, func() error { return l.FastLock(-time.Second, 0) }); !errors.Is(err, ErrTimeout) {
		t.Fatalf("FastLock(-1s) on held lock = %v", err)
	}
	start := time.Now()
	if err := l.FastLock(5*time.Millisecond, 100*time.Microsecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("FastLock on held lock = %v", err)
	}
	if d := time.Since(start); d < 5*time.Millisecond {
		t.Fatalf("timed out after %v, before the 5 ms timeout", d)
	}
	if err := l.FastLock(5*time.Millisecond, 0); !errors.Is(err, ErrTimeout) {
		t.Fatalf("FastLock without sleep on held lock = %v", err)
	}
	l.FastUnLock()
	if err := l.FastLock(Forever, 0); err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(2 * time.Millisecond); l.FastUnLock() }()
	if err := l.FastLock(Forever, 50*time.Microsecond); err != nil {
		t.Fatal(err)
	}
	l.FastUnLock()
}

func TestFastLockMutualExclusion(t *testing.T) {
	var l FastLock
	var inside atomic.Int32
	n := 20000
	if testenv.RaceEnabled {
		n = 2000
	}
	counter := 0
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Go(func() {
			for i := 0; i < n; i++ {
				if err := l.FastLock(Forever, time.Microsecond); err != nil {
					t.Error(err)
					return
				}
				if inside.Add(1) != 1 {
					t.Error("two holders")
				}
				counter++
				inside.Add(-1)
				l.FastUnLock()
			}
		})
	}
	wg.Wait()
	if counter != 4*n {
		t.Fatalf("counter %d, want %d", counter, 4*n)
	}
}

func TestEventSemBasics(t *testing.T) {
	var e EventSem
	if e.posted() {
		t.Fatal("zero value posted")
	}
	if err := e.waitSet(0); !errors.Is(err, ErrTimeout) {
		t.Fatalf("Wait(0) on reset sem = %v", err)
	}
	if err := within(t, func() error { return e.WaitReset(-time.Second) }); !errors.Is(err, ErrTimeout) {
		t.Fatalf("WaitReset(-1s), a deadline already past, on reset sem = %v", err)
	}
	start := time.Now()
	if err := e.waitSet(3 * time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("Wait on reset sem = %v", err)
	}
	if d := time.Since(start); d < 3*time.Millisecond {
		t.Fatalf("Wait returned after %v", d)
	}
	if e.PostWoke() { // the timed-out Wait left no waiter registered
		t.Fatal("Post after a timed-out Wait made a futex wake")
	}
	e.Post()
	for i := 0; i < 2; i++ { // manual reset: stays set
		if err := e.waitSet(Forever); err != nil {
			t.Fatal(err)
		}
	}
	e.reset()
	if e.posted() || e.waitSet(0) == nil {
		t.Fatal("Reset did not clear")
	}
	e.Post()
	if err := e.WaitReset(0); err != nil || e.posted() {
		t.Fatalf("WaitReset = %v, posted after = %v", err, e.posted())
	}
}

func TestEventSemWakesAllWaiters(t *testing.T) {
	var e EventSem
	var wg sync.WaitGroup
	var woke atomic.Int32
	for i := 0; i < 3; i++ {
		wg.Go(func() {
			if err := e.waitSet(10 * time.Second); err == nil {
				woke.Add(1)
			}
		})
	}
	for !e.parked() {
		time.Sleep(100 * time.Microsecond)
	}
	time.Sleep(5 * time.Millisecond) // let the others park too
	e.Post()
	wg.Wait()
	if woke.Load() != 3 {
		t.Fatalf("%d of 3 waiters woke", woke.Load())
	}
}

// TestEventSemPostWoke checks that PostWoke reports a wake exactly when a
// waiter is parked: not when nobody waits, not when the event is already
// set, and not after the waiter has gone.
func TestEventSemPostWoke(t *testing.T) {
	var e EventSem
	if e.PostWoke() {
		t.Fatal("PostWoke with nobody waiting reported a wake")
	}
	if e.PostWoke() {
		t.Fatal("PostWoke on a set event reported a wake")
	}
	e.reset()
	done := make(chan error)
	go func() { done <- e.WaitReset(10 * time.Second) }()
	for !e.parked() {
		time.Sleep(100 * time.Microsecond)
	}
	if !e.PostWoke() {
		t.Fatal("PostWoke with a parked waiter reported no wake")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if e.parked() {
		t.Fatal("the waiter is still registered after its wait returned")
	}
	if e.PostWoke() {
		t.Fatal("PostWoke after the waiter returned reported a wake")
	}
}

// TestEventSemLatestValueWins checks the hand-off the RT thread uses: the
// consumer sees every value or counts it as skipped, and always sees the last.
func TestEventSemLatestValueWins(t *testing.T) {
	var (
		e    EventSem
		l    FastLock
		val  uint64
		done atomic.Bool
	)
	const n = 20000
	var seen, skipped, last uint64
	fin := make(chan struct{})
	go func() {
		defer close(fin)
		for {
			if err := e.WaitReset(20 * time.Millisecond); err != nil {
				if done.Load() && !e.posted() {
					return
				}
				continue
			}
			l.FastLock(Forever, 0)
			v := val
			l.FastUnLock()
			if v < last {
				t.Errorf("value went back %d -> %d", last, v)
			}
			if v > last {
				seen++
				skipped += v - last - 1
				last = v
			}
		}
	}()
	for i := uint64(1); i <= n; i++ {
		l.FastLock(Forever, 0)
		val = i
		l.FastUnLock()
		e.Post()
		if i%1000 == 0 {
			runtime.Gosched()
		}
	}
	done.Store(true)
	<-fin
	if last != n || seen+skipped != n {
		t.Fatalf("last %d seen %d skipped %d, want last %d and seen+skipped %d", last, seen, skipped, n, n)
	}
	t.Logf("seen %d, skipped %d (latest value wins)", seen, skipped)
}

var sinkErr error

func TestNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	var l FastLock
	var e EventSem
	for name, f := range map[string]func(){
		"FastLock":        func() { sinkErr = l.FastLock(Forever, 0); l.FastUnLock() },
		"FastLockTimeout": func() { l.tryLock(); sinkErr = l.FastLock(time.Microsecond, 0); l.FastUnLock() },
		"Post":            func() { e.Post() },
		"PostReset":       func() { e.Post(); e.reset() },
		"WaitReset":       func() { e.Post(); sinkErr = e.WaitReset(0) },
	} {
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s allocates %v times", name, n)
		}
	}
	testenv.SkipIfPortable(t)
	if n := testing.AllocsPerRun(1000, func() { sinkErr = e.waitSet(time.Microsecond) }); n != 0 {
		t.Errorf("WaitTimeout allocates %v times", n)
	}
	// Post with a parked waiter (a futex wake).
	stop := make(chan struct{})
	var parked EventSem
	go func() {
		for {
			parked.WaitReset(Forever)
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	if n := testing.AllocsPerRun(100, func() {
		for !parked.parked() {
			time.Sleep(20 * time.Microsecond)
		}
		parked.Post()
	}); n != 0 {
		t.Errorf("Post with a parked waiter allocates %v times", n)
	}
	close(stop)
	parked.Post()
}
