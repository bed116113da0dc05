package rtsync

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/latency"
	"github.com/streamerd/streamerd/rt/cpu"
)

// pinned runs f on a fresh OS thread pinned to CPU c when there are at least
// two CPUs, and waits for it.
func pinned(b *testing.B, c int, f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		if all, _ := cpu.OnlineMask(); all.Count() >= 2 && all.Has(c) {
			if err := cpu.PinCurrentThread(cpu.Of(c)); err != nil {
				b.Error(err)
				return
			}
		}
		f()
	}()
	<-done
}

func BenchmarkPostNoWaiter(b *testing.B) {
	var e EventSem
	b.ReportAllocs()
	for b.Loop() {
		e.Post()
		e.Reset()
	}
}

func BenchmarkFastLockUncontended(b *testing.B) {
	var l FastLock
	b.ReportAllocs()
	for b.Loop() {
		l.FastLock(Forever, 0)
		l.FastUnLock()
	}
}

// BenchmarkPostLatency times single Posts on a pinned thread (CPU 1) and
// reports the distribution of what the RT thread pays: nowaiter is the
// common case, futex wakes a waiter parked on CPU 0 in WaitReset, chan is the
// same hand-off with a buffered channel for comparison. wake is the delay
// from the start of Post until the waiter runs.
func BenchmarkPostLatency(b *testing.B) {
	b.Run("nowaiter", func(b *testing.B) {
		var e EventSem
		post := make([]int64, 0, b.N)
		b.ReportAllocs()
		pinned(b, 1, func() {
			base := time.Now()
			for i := 0; i < b.N; i++ {
				t0 := time.Since(base)
				e.Post()
				post = append(post, int64(time.Since(base)-t0))
				e.Reset()
			}
		})
		latency.Report(b, post, "", "ns")
	})
	b.Run("futex", func(b *testing.B) {
		var e EventSem
		var got atomic.Int64
		var wokeAt atomic.Int64
		base := time.Now()
		n := b.N
		go pinned(b, 0, func() {
			for i := 0; i < n; i++ {
				e.WaitReset(Forever)
				wokeAt.Store(int64(time.Since(base)))
				got.Add(1)
			}
		})
		post := make([]int64, 0, n)
		wake := make([]int64, 0, n)
		b.ReportAllocs()
		pinned(b, 1, func() {
			for i := 0; i < n; i++ {
				for e.state.Load()&semWaiters == 0 { // until parked
				}
				t0 := time.Since(base)
				e.Post()
				post = append(post, int64(time.Since(base)-t0))
				for got.Load() != int64(i+1) {
				}
				wake = append(wake, wokeAt.Load()-int64(t0))
			}
		})
		latency.Report(b, post, "", "ns")
		latency.Report(b, wake, "", "wake-ns")
	})
	b.Run("chan", func(b *testing.B) {
		ch := make(chan struct{}, 1)
		var got, ready atomic.Int64
		var wokeAt atomic.Int64
		base := time.Now()
		n := b.N
		go pinned(b, 0, func() {
			for i := 0; i < n; i++ {
				ready.Store(int64(i + 1))
				<-ch
				wokeAt.Store(int64(time.Since(base)))
				got.Add(1)
			}
		})
		post := make([]int64, 0, n)
		wake := make([]int64, 0, n)
		b.ReportAllocs()
		pinned(b, 1, func() {
			for i := 0; i < n; i++ {
				for ready.Load() != int64(i+1) {
				}
				// No way to see that a receiver is parked: give it 50 µs.
				for t := time.Now(); time.Since(t) < 50*time.Microsecond; {
				}
				t0 := time.Since(base)
				select {
				case ch <- struct{}{}:
				default:
				}
				post = append(post, int64(time.Since(base)-t0))
				for got.Load() != int64(i+1) {
				}
				wake = append(wake, wokeAt.Load()-int64(t0))
			}
		})
		latency.Report(b, post, "", "ns")
		latency.Report(b, wake, "", "wake-ns")
	})
}
