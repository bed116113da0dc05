package rd100s_test

import (
	"fmt"
	"log/slog"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/rd100s"
)

// An emulated encoder fed by four GAM outputs, with the operator injecting
// faults at run time as the daemon's HTTP endpoint would.
func Example() {
	cfg := rd100s.DefaultConfig() // dest_port 5100, rate_hz 100, a valid referenced encoder
	cfg.Name = "EncoderUDP"
	cfg.DestHost = "127.0.0.1"
	cfg.AzimuthSignal, cfg.ElevationSignal = "ant.az_position", "ant.el_position"
	cfg.AzRateSignal, cfg.ElRateSignal = "ant.az_rate", "ant.el_rate"
	cfg.Signals = []datasource.Signal{
		{Name: "ant.az_position", Type: datasource.Float64, Unit: "deg"},
		{Name: "ant.el_position", Type: datasource.Float64, Unit: "deg"},
		{Name: "ant.az_rate", Type: datasource.Float32, Unit: "deg/s"},
		{Name: "ant.el_rate", Type: datasource.Float32, Unit: "deg/s"},
	}
	enc, err := rd100s.New(cfg, metrics.NewSet(), slog.New(slog.DiscardHandler))
	if err != nil {
		fmt.Println(err)
		return
	}
	enc.AllocateMemory()
	if err := enc.PrepareNextState(); err != nil {
		fmt.Println(err)
		return
	}
	defer enc.Close()
	// ... the RT thread writes the signals and calls enc.Synchronise() ...

	// Operator: lose one packet in five, then a 300 ms burst, then stop losing.
	for _, kv := range [][2]string{{"loss_every_n", "5"}, {"burst_loss_ms", "300"}, {"loss_every_n", "0"}} {
		if err := enc.Set(kv[0], kv[1]); err != nil {
			fmt.Println(err)
		}
	}
	fmt.Println(enc.Set("loss_probability", "1.5"))
	// Output: datasource "EncoderUDP": loss_probability: must be a probability in 0..1, got 1.5
}
