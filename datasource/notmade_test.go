package datasource_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/VictoriaMetrics/metrics"
	"github.com/streamerd/streamerd/broker"
	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp"
	"github.com/streamerd/streamerd/datasource/rd100s"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/testenv"
)

// producer is every method the three producers share beyond DataSource.
type producer interface {
	datasource.DataSource
	Start(ctx context.Context) error
	Metrics() *metrics.Set
}

// notMade are the producers a program holds when it ignored New's error
// (nil) or skipped New (a zero value).
func notMade() map[string]producer {
	return map[string]producer{
		"nil Streamer": (*udpstreamer.Streamer)(nil), "zero Streamer": new(udpstreamer.Streamer),
		"nil Sender": (*flatudp.Sender)(nil), "zero Sender": new(flatudp.Sender),
		"nil Encoder": (*rd100s.Encoder)(nil), "zero Encoder": new(rd100s.Encoder),
	}
}

// TestNotMade calls every method of a nil and a zero producer: each
// returns datasource.ErrNotMade (or its zero value, Internals nil) instead
// of panicking, however often it is called.
func TestNotMade(t *testing.T) {
	for name, p := range notMade() {
		t.Run(name, func(t *testing.T) {
			calls := map[string]func() error{
				"AllocateMemory": p.AllocateMemory,
				"GetSignalMemoryBuffer": func() error {
					b, err := p.GetSignalMemoryBuffer(0)
					if b != nil {
						t.Errorf("GetSignalMemoryBuffer returned %d bytes", len(b))
					}
					return err
				},
				"PrepareNextState": p.PrepareNextState,
				"Start":            func() error { return p.Start(context.Background()) },
				"Synchronise":      p.Synchronise,
				"Close":            p.Close,
			}
			if e, ok := p.(*rd100s.Encoder); ok {
				calls["Set"] = func() error { return e.Set("loss_probability", "0.1") }
			}
			for range 2 {
				for call, f := range calls {
					err := f()
					if !errors.Is(err, datasource.ErrNotMade) {
						t.Errorf("%s: %v, want ErrNotMade", call, err)
					} else if kind := strings.TrimPrefix(fmt.Sprintf("%T", p), "*"); !strings.HasPrefix(err.Error(), kind+": "+call+": ") {
						t.Errorf("%s: %q does not begin with %q", call, err, kind+": "+call+": ")
					}
				}
			}
			if p.Name() != "" || p.Signals() != nil {
				t.Errorf("Name %q, Signals %v", p.Name(), p.Signals())
			}
			if p.Metrics() == nil {
				t.Error("Metrics: nil set")
			}
			if in := p.(interface{ Internals() any }).Internals(); in != nil {
				t.Errorf("Internals: %T", in)
			}
			if b, err := broker.NewMemoryMapSynchronisedOutputBroker(p, nil); b != nil || !errors.Is(err, datasource.ErrNotMade) {
				t.Errorf("broker: %v", err)
			}
		})
	}
	if a := (*udpstreamer.Streamer)(nil).LocalAddr(); a.IsValid() {
		t.Errorf("LocalAddr of a nil Streamer: %v", a)
	}
	if s := (*flatudp.Sender)(nil).SignalsString(); s != "" {
		t.Errorf("SignalsString of a nil Sender: %q", s)
	}
	for name, err := range map[string]error{
		"udpstreamer": udpstreamer.Validate(nil), "flatudp": flatudp.Validate(nil), "rd100s": rd100s.Validate(nil),
	} {
		if err == nil {
			t.Errorf("%s: Validate(nil): no error", name)
		}
	}
	datasource.WritePrometheus(nil, metrics.NewSet().WritePrometheus, nil) // nowhere to write: nothing written
}

// TestNotMadeSynchroniseNoAllocs: a control loop calling Synchronise on a
// producer it never made gets its error without an allocation per cycle.
func TestNotMadeSynchroniseNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	for name, p := range notMade() {
		if n := testing.AllocsPerRun(100, func() { _ = p.Synchronise() }); n != 0 {
			t.Errorf("%s: Synchronise: %v allocations", name, n)
		}
	}
}

// TestNewKeepsItsOwnSignals: a producer copies its Config's signals, so a
// caller that edits its slice after New (reusing one Config for several
// producers) changes nothing the producer validated and laid out; before,
// a network thread serialising the edited layout crashed the process.
func TestNewKeepsItsOwnSignals(t *testing.T) {
	sigs := func() []datasource.Signal {
		return []datasource.Signal{
			{Name: "A", Type: datasource.Float64},
			{Name: "B", Type: datasource.Float32},
			{Name: "C", Type: datasource.Float32},
			{Name: "D", Type: datasource.Float32},
		}
	}
	us := udpstreamer.Config{Name: "U", Address: "127.0.0.1", Signals: sigs()}
	fl := flatudp.Config{Name: "F", Address: "127.0.0.1", ExecutionMode: "RealTimeThread", Signals: sigs()}
	rd := encoderConfig("R", sigs())
	var ps []producer
	var given [][]datasource.Signal
	for _, mk := range []func() (producer, []datasource.Signal, error){
		func() (producer, []datasource.Signal, error) {
			p, err := udpstreamer.New(us, metrics.NewSet(), nil)
			return p, us.Signals, err
		},
		func() (producer, []datasource.Signal, error) {
			p, err := flatudp.New(fl, metrics.NewSet(), nil)
			return p, fl.Signals, err
		},
		func() (producer, []datasource.Signal, error) {
			p, err := rd100s.New(rd, metrics.NewSet(), nil)
			return p, rd.Signals, err
		},
	} {
		p, s, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		ps, given = append(ps, p), append(given, s)
	}
	for i, p := range ps {
		given[i][0] = datasource.Signal{Name: "X", Type: datasource.Uint8, NumberOfDimensions: 1, NumberOfElements: 1000}
		if err := p.AllocateMemory(); err != nil {
			t.Fatal(err)
		}
		if got := p.Signals()[0]; got.Name != "A" || got.Type != datasource.Float64 {
			t.Errorf("%s: signal 0 after the caller's edit: %+v", p.Name(), got)
		}
		if b, err := p.GetSignalMemoryBuffer(0); err != nil || len(b) != 8 {
			t.Errorf("%s: signal 0 has %d bytes (%v), want 8", p.Name(), len(b), err)
		}
		p.Close()
	}
}
