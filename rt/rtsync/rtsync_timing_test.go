package rtsync

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/latency"
	"github.com/streamerd/streamerd/rt/cpu"
)

// pinned runs f on a fresh OS thread pinned to CPU c when there are at least
// two CPUs, and waits for it.
func pinned(b *testing.B, c int, f func()) {
	mask := cpu.Mask(0)
	if all, _ := cpu.OnlineMask(); all.Count() >= 2 && all.Has(c) {
		mask = cpu.Of(c)
	}
	_, done, err := cpu.StartThread(mask, 0, f)
	if err != nil {
		b.Error(err)
		return
	}
	<-done
}

func BenchmarkPostNoWaiter(b *testing.B) {
	var e EventSem
	b.ReportAllocs()
	for b.Loop() {
		e.Post()
		e.reset()
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
				e.reset()
			}
		})
		latency.Report(b, post, "", "ns")
	})
	b.Run("futex", func(b *testing.B) {
		var e EventSem
		benchHandOff(b,
			func() { e.WaitReset(Forever) },
			func(int) bool { return e.parked() }, // parked
			e.Post)
	})
	b.Run("chan", func(b *testing.B) {
		ch := make(chan struct{}, 1)
		var ready atomic.Int64
		benchHandOff(b,
			func() { ready.Add(1); <-ch },
			func(i int) bool {
				if ready.Load() != int64(i+1) {
					return false
				}
				// No way to see that a receiver is parked: give it 50 µs.
				for t := time.Now(); time.Since(t) < 50*time.Microsecond; {
				}
				return true
			},
			func() {
				select {
				case ch <- struct{}{}:
				default:
				}
			})
	})
}

// benchHandOff times b.N hand-offs from a poster pinned to CPU 1 to a
// waiter pinned to CPU 0, which calls wait once per hand-off. Before each,
// the poster spins until parked(i) reports the waiter blocked in its i-th
// wait, then times post (the ns metrics) and the delay until the waiter
// runs (wake-ns).
func benchHandOff(b *testing.B, wait func(), parked func(i int) bool, post func()) {
	var got, wokeAt atomic.Int64
	base := time.Now()
	n := b.N
	go pinned(b, 0, func() {
		for range n {
			wait()
			wokeAt.Store(int64(time.Since(base)))
			got.Add(1)
		}
	})
	posts := make([]int64, 0, n)
	wake := make([]int64, 0, n)
	b.ReportAllocs()
	pinned(b, 1, func() {
		for i := range n {
			for !parked(i) {
			}
			t0 := time.Since(base)
			post()
			posts = append(posts, int64(time.Since(base)-t0))
			for got.Load() != int64(i+1) {
			}
			wake = append(wake, wokeAt.Load()-int64(t0))
		}
	})
	latency.Report(b, posts, "", "ns")
	latency.Report(b, wake, "", "wake-ns")
}
