package cpu_test

import (
	"fmt"

	"github.com/streamerd/streamerd/rt/cpu"
)

// Example builds the CPU masks a program pins its control loop and a
// producer's network thread with: two CPUs apart when the machine has
// them.
func Example() {
	loop, net := cpu.Of(1), cpu.Of(0)
	fmt.Println(loop, net, loop.Has(1), cpu.Of(0, 2, 3).Count())
	m, err := cpu.ParseMask("0x5") // as the daemon's TOML writes a mask
	fmt.Println(m, m.Has(2), err)
	_, err = cpu.ParseMask("cpu0")
	fmt.Println(err != nil)

	online, err := cpu.OnlineMask() // cpu.ErrNotSupported where the system cannot say
	if err == nil && online.Has(0) && online.Has(1) {
		// rt.Config{CPUMask: loop} and udpstreamer.Config{CPUMask: net}
	}
	// Output:
	// 0x2 0x1 true 3
	// 0x5 true <nil>
	// true
}
