package netthread_test

import (
	"fmt"
	"time"

	"github.com/streamerd/streamerd/netthread"
)

// ExampleSendMethod reads a send method by the name the TOML key
// SendMethod, /status and the docs use; a name that is none of them is
// refused with the four.
func ExampleSendMethod() {
	var m netthread.SendMethod
	if err := m.UnmarshalText([]byte("sendmmsg")); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m, m == netthread.MethodSendmmsg)
	fmt.Println(m.UnmarshalText([]byte("loop")))
	// Output:
	// sendmmsg true
	// netthread: unknown send method "loop" (want auto, gso, sendmmsg or sendto)
}

// ExampleStart runs a body on a network thread until Stop.
func ExampleStart() {
	ticks := make(chan int, 1)
	th, err := netthread.Start(netthread.Config{Name: "net"}, func(stop <-chan struct{}) {
		n := 0
		for {
			select {
			case <-stop:
				ticks <- n
				return
			case <-time.After(time.Millisecond):
				n++
			}
		}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	time.Sleep(20 * time.Millisecond)
	fmt.Println(th.Stop(), <-ticks > 0, th.Stop())
	// Output: <nil> true <nil>
}
