package rt

import (
	"sync"
	"time"
)

// WarmThreadPool makes the Go runtime create n idle OS threads now. The
// runtime keeps idle threads for good, but creating one allocates (its m and
// g0), and it creates them lazily whenever goroutines block in system calls,
// as the RT and service threads do all the time: without a warm pool the
// first minutes of a run allocate a little, then stop. An application calls
// it once before starting its threads.
func WarmThreadPool(n int) {
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sleepInSyscall(20 * time.Millisecond)
		}()
	}
	wg.Wait()
}
