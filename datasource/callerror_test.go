package datasource_test

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/VictoriaMetrics/metrics"
	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp"
	"github.com/streamerd/streamerd/datasource/rd100s"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/rt/cpu"
)

// TestStartErrorsNameTheCall: a start that fails on the machine (a CPU mask
// it lacks, a port already taken) names the datasource and the call, as the
// errors of a call out of order do, and leaves the producer where it was.
func TestStartErrorsNameTheCall(t *testing.T) {
	taken, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.LocalAddr().(*net.UDPAddr).Port
	missing := cpu.Mask(1) << 63 // no machine here has 64 CPUs
	sigs := []datasource.Signal{{Name: "A", Type: datasource.Float64}, {Name: "B", Type: datasource.Float32}, {Name: "C", Type: datasource.Float32}}
	streamer := func(port int, mask cpu.Mask) producer {
		p, err := udpstreamer.New(udpstreamer.Config{Name: "U", Address: "127.0.0.1", Port: port, Signals: sigs,
			NetworkThread: datasource.NetworkThread{CPUMask: mask}}, metrics.NewSet(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	sender := func(mask cpu.Mask) producer {
		p, err := flatudp.New(flatudp.Config{Name: "F", Address: "127.0.0.1", ExecutionMode: "RealTimeThread", Signals: sigs,
			NetworkThread: datasource.NetworkThread{CPUMask: mask}}, metrics.NewSet(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	encoder := func(port int, mask cpu.Mask) producer {
		c := encoderConfig("R", sigs)
		c.SrcPort, c.CPUMask = port, mask
		p, err := rd100s.New(c, metrics.NewSet(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name  string
		p     producer
		start func(producer) error
		want  string
	}{
		{"Streamer port taken, Start", streamer(port, 0), startBackground, `datasource "U": PrepareNextState: listen udp4 127.0.0.1:` + strconv.Itoa(port)},
		{"Streamer CPU mask, PrepareNextState", streamer(0, missing), allocateAndPrepare, `datasource "U": PrepareNextState: network thread: `},
		{"Sender CPU mask, Start", sender(missing), startBackground, `datasource "F": PrepareNextState: sender thread: `},
		{"Encoder port taken, PrepareNextState", encoder(port, 0), allocateAndPrepare, `datasource "R": PrepareNextState: src_port ` + strconv.Itoa(port)},
		{"Encoder CPU mask, Start", encoder(0, missing), startBackground, `datasource "R": PrepareNextState: network thread: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer tc.p.Close()
			err := tc.start(tc.p)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error beginning %q", err, tc.want)
			}
			if testing.Verbose() {
				t.Log(err)
			}
			// Left allocated: a second attempt fails the same way, not as
			// started or allocated twice.
			if err := tc.p.PrepareNextState(); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("again: got %v, want an error beginning %q", err, tc.want)
			}
		})
	}
}

// encoderConfig is an RD100S encoder to loopback that takes its position
// from sigs[0] and its rates from sigs[1] and sigs[2].
func encoderConfig(name string, sigs []datasource.Signal) rd100s.Config {
	c := rd100s.DefaultConfig()
	c.Name, c.DestHost, c.Signals = name, "127.0.0.1", sigs
	c.AzimuthSignal, c.ElevationSignal = sigs[0].Name, sigs[0].Name
	c.AzRateSignal, c.ElRateSignal = sigs[1].Name, sigs[2].Name
	return c
}

func startBackground(p producer) error { return p.Start(context.Background()) }

func allocateAndPrepare(p producer) error {
	if err := p.AllocateMemory(); err != nil {
		return err
	}
	return p.PrepareNextState()
}

// TestProducersLogStartAndStop: each producer's logger gets a line when it
// starts and one when it stops, as embedding.md says.
func TestProducersLogStartAndStop(t *testing.T) {
	sigs := []datasource.Signal{{Name: "A", Type: datasource.Float64}, {Name: "B", Type: datasource.Float32}, {Name: "C", Type: datasource.Float32}}
	for _, tc := range []struct {
		start, stop string
		make        func(*slog.Logger) (producer, error)
	}{
		{"UDPStreamer listening", "UDPStreamer stopped", func(log *slog.Logger) (producer, error) {
			return udpstreamer.New(udpstreamer.Config{Name: "U", Address: "127.0.0.1", Signals: sigs}, metrics.NewSet(), log)
		}},
		{"FlatUDP sending", "FlatUDP stopped", func(log *slog.Logger) (producer, error) {
			return flatudp.New(flatudp.Config{Name: "F", Address: "127.0.0.1", ExecutionMode: "RealTimeThread", Signals: sigs}, metrics.NewSet(), log)
		}},
		{"RD100S encoder emitting", "RD100S encoder stopped", func(log *slog.Logger) (producer, error) {
			return rd100s.New(encoderConfig("R", sigs), metrics.NewSet(), log)
		}},
	} {
		var buf bytes.Buffer
		p, err := tc.make(slog.New(slog.NewTextHandler(&buf, nil)))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		for _, msg := range []string{tc.start, tc.stop} {
			if !strings.Contains(buf.String(), `msg="`+msg+`"`) {
				t.Errorf("%s: no line %q in:\n%s", p.Name(), msg, buf.String())
			}
		}
	}
}

// TestConcurrentStarts: of two Starts racing on one producer, one starts it
// and the other says it is started; neither blames an AllocateMemory its
// caller never made.
func TestConcurrentStarts(t *testing.T) {
	sigs := []datasource.Signal{{Name: "A", Type: datasource.Float64}}
	for range 50 {
		p, err := udpstreamer.New(udpstreamer.Config{Name: "U", Address: "127.0.0.1", Signals: sigs}, metrics.NewSet(), nil)
		if err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, 2)
		for range 2 {
			go func() { errs <- p.Start(context.Background()) }()
		}
		a, b := <-errs, <-errs
		if (a == nil) == (b == nil) || !errors.Is(cmp.Or(a, b), datasource.ErrStarted) {
			t.Fatalf("two Starts: %v and %v; want one nil and one ErrStarted", a, b)
		}
		p.Close()
	}
}
