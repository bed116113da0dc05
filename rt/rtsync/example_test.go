package rtsync_test

import (
	"fmt"
	"time"

	"github.com/streamerd/streamerd/rt/rtsync"
)

// Example is the hand-off between an RT thread and a network thread: the
// producer copies under the FastLock and posts the EventSem; the consumer
// waits on it and takes the value under the same lock.
func Example() {
	var (
		lock  rtsync.FastLock
		ready rtsync.EventSem
		value int
	)
	done := make(chan int)
	go func() { // the network thread
		if err := ready.WaitReset(time.Second); err != nil {
			fmt.Println(err)
		}
		lock.FastLock(rtsync.Forever, 0)
		v := value
		lock.FastUnLock()
		done <- v
	}()
	// The RT thread: never waits longer than its budget for the lock.
	if err := lock.FastLock(100*time.Microsecond, 0); err != nil {
		fmt.Println(err)
		return
	}
	value = 42
	lock.FastUnLock()
	ready.Post()
	fmt.Println(<-done)
	// Output: 42
}
