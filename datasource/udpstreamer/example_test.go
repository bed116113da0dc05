package udpstreamer_test

import (
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/broker"
	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/quant"
	"github.com/streamerd/streamerd/rt"
)

// control is the embedding program's GAM: any type with an Execute() error
// method can be a step of an rt.Thread.
type control struct {
	counter []uint32
	voltage []float32
}

func (c *control) Execute() error {
	c.counter[0]++
	c.voltage[0] = float32(5 * math.Sin(float64(c.counter[0])/100))
	return nil
}

// Example builds, from Go code and without TOML, the streamer of the
// minimal example of docs/udpstreamer.md, driven by a control loop of the
// embedding program at 1 kHz.
func Example() {
	log := slog.New(slog.DiscardHandler)
	ms := metrics.NewSet() // serve it with datasource.WritePrometheus(w, ms.WritePrometheus, nil)

	s, err := udpstreamer.New(udpstreamer.Config{
		Name:    "Streamer",
		Address: "127.0.0.1",
		Port:    0, // 0 picks a free port; MARTe2's default is udpstreamer.DefaultPort
		Signals: []datasource.Signal{
			{Name: "Counter", Type: datasource.Uint32},
			{Name: "Voltage", Type: datasource.Float32, Unit: "V", RangeMin: -10, RangeMax: 10, QuantizedType: quant.Uint16},
		},
	}, ms, log)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := s.AllocateMemory(); err != nil {
		fmt.Println(err)
		return
	}

	// The control loop's outputs are ordinary Go slices; the broker copies
	// them into the datasource's packed memory and calls Synchronise.
	counter := make([]uint32, 1)
	voltage := make([]float32, 1)
	b, err := broker.NewMemoryMapSynchronisedOutputBroker(s, []broker.Output{
		{Signal: "Counter", Src: datasource.Bytes(counter)},
		{Signal: "Voltage", Src: datasource.Bytes(voltage)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	th, err := rt.New(rt.Config{Name: "RT", Frequency: 1000},
		[]rt.Step{{Name: "control", Exec: &control{counter, voltage}}},
		[]rt.Step{{Name: "broker", Exec: b}})
	if err != nil {
		fmt.Println(err)
		return
	}

	if err := s.PrepareNextState(); err != nil { // socket and network thread
		fmt.Println(err)
		return
	}
	defer s.Stop()
	if err := th.Start(); err != nil {
		fmt.Println(err)
		return
	}
	time.Sleep(50 * time.Millisecond) // clients connect to s.LocalAddr()
	th.Stop()

	fmt.Printf("DATA payload: %d bytes in %d fragment\n", s.PayloadSize(), s.FragmentCount())
	fmt.Println("control loop ran:", counter[0] > 0)
	// Output:
	// DATA payload: 14 bytes in 1 fragment
	// control loop ran: true
}
