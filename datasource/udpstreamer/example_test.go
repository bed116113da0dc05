package udpstreamer_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/streamerd/streamerd/broker"
	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/quant"
	"github.com/streamerd/streamerd/rt"
)

// Example streams two signals of a Go control loop: the path of
// docs/embedding.md (New, Start, a broker binding the loop's slices by
// name, Execute once per cycle, Close), every error checked. README.md's
// embedding snippet is this function's body.
func Example() {
	// Validated here; nil, nil: a private metrics set (s.Metrics()), no logging.
	s, err := udpstreamer.New(udpstreamer.Config{
		Name:    "Streamer",
		Address: "127.0.0.1",
		Port:    0, // any free port; streamerd's default is udpstreamer.DefaultPort
		Signals: []datasource.Signal{
			{Name: "Counter", Type: datasource.Uint32},
			{Name: "Voltage", Type: datasource.Float32, Unit: "V", RangeMin: -10, RangeMax: 10, QuantizedType: quant.Uint16},
		},
		// The loop's period: the network thread wakes just before each cycle
		// instead of being woken by it (and the hand-off ring holds 500 ms of cycles).
		NetworkThread: datasource.NetworkThread{CyclePeriod: time.Millisecond},
	}, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close() // network thread, socket and metrics released

	// Signal memory, socket, network thread (not pinned: Config.CPUMask
	// pins it). Cancelling ctx closes the streamer too.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := s.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}

	// The loop's outputs are Go slices, bound by name; the broker checks
	// each against its signal's type and length.
	counter := make([]uint32, 1)
	voltage := make([]float32, 1)
	b, err := broker.NewMemoryMapSynchronisedOutputBroker(s, []broker.Output{
		broker.Bind("Counter", counter),
		broker.Bind("Voltage", voltage),
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	// The control loop, here paced by a ticker at 1 kHz (rt.Thread paces a
	// loop by absolute deadlines, and pins it to the CPUs of its CPUMask).
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for i := range 100 {
		<-tick.C
		counter[0] = uint32(i)
		voltage[0] = float32(5 * math.Sin(float64(i)/10))
		if err := b.Execute(); err != nil { // copy + Synchronise: no allocation
			fmt.Println(err)
			return
		}
	}
	// The private metrics set (nil was passed to New) counts the cycles.
	synced := s.Metrics().GetOrCreateCounter(`streamerd_udpstreamer_synchronise_total{datasource="Streamer"}`)
	fmt.Println(synced.Get(), "cycles synchronised")

	// After Close, Execute says so, still without allocating.
	s.Close()
	fmt.Println(errors.Is(b.Execute(), datasource.ErrClosed))
	// Output:
	// 100 cycles synchronised
	// true
}

// control is the embedding program's GAM: any type with an Execute()
// error method can be a step of an rt.Thread.
type control struct {
	counter []uint32
	voltage []float32
}

func (c *control) Execute() error {
	c.counter[0]++
	c.voltage[0] = float32(5 * math.Sin(float64(c.counter[0])/100))
	return nil
}

// Example_rtThread lets streamerd's RT thread pace the control loop: the
// program's step, then the broker, once per period from absolute
// deadlines. The thread is pinned when its Config.CPUMask names CPUs (see
// rt/cpu), the network thread when the streamer's does; here neither is.
func Example_rtThread() {
	s, err := udpstreamer.New(udpstreamer.Config{
		Name: "Streamer", Address: "127.0.0.1",
		Signals: []datasource.Signal{
			{Name: "Counter", Type: datasource.Uint32},
			{Name: "Voltage", Type: datasource.Float32},
		},
		// The RT thread's period below: the network thread wakes just
		// before each cycle instead of being woken by it.
		NetworkThread: datasource.NetworkThread{CyclePeriod: time.Millisecond},
	}, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	if err := s.Start(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	c := &control{counter: make([]uint32, 1), voltage: make([]float32, 1)}
	b, err := broker.NewMemoryMapSynchronisedOutputBroker(s, []broker.Output{
		broker.Bind("Counter", c.counter),
		broker.Bind("Voltage", c.voltage),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	th, err := rt.New(rt.Config{Name: "RT", Frequency: 1000},
		[]rt.Step{{Name: "control", Exec: c}},
		[]rt.Step{{Name: "broker", Exec: b}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := th.Start(ctx); err != nil { // stops when ctx is done
		fmt.Println(err)
		return
	}
	<-ctx.Done()
	th.Stop() // waits for the thread; ErrNotRunning if ctx already stopped it
	st := th.Stats()
	fmt.Println("control loop ran:", c.counter[0] > 0, "broker failures:", st.Steps[1].Failures)
	// Output:
	// control loop ran: true broker failures: 0
}
