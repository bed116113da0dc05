package client

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
	"github.com/streamerd/streamerd/internal/udpstest"
)

const (
	waitLong = 10 * time.Second // generous: the CI box is a loaded 2-core VM
)

func scalar(name string, t datasource.Type, unit string) datasource.Signal {
	return datasource.Signal{Name: name, Type: t, Unit: unit}
}

// scalarA is the signal list of most tests: one uint32 scalar, A.
func scalarA() []datasource.Signal { return []datasource.Signal{scalar("A", datasource.Uint32, "")} }

// manySigs is n uint8 scalars, S0 to S<n-1>.
func manySigs(n int) []datasource.Signal {
	sigs := make([]datasource.Signal, n)
	for i := range sigs {
		sigs[i] = scalar(fmt.Sprintf("S%d", i), datasource.Uint8, "")
	}
	return sigs
}

func vector(name string, t datasource.Type, n uint32) datasource.Signal {
	return datasource.Signal{Name: name, Type: t, NumberOfDimensions: 1, NumberOfElements: int(n)}
}

// burstSigs is the burst example of docs/udpstreamer.md: 4012-byte
// payloads, 3 fragments at MaxPayloadSize 1400.
func burstSigs() []datasource.Signal {
	ch := vector("Ch1", datasource.Float32, 1000)
	ch.Unit, ch.TimeMode, ch.TimeSignal, ch.SamplingRate = "V", datasource.FirstSample, "T0", 1e6
	return []datasource.Signal{scalar("T0", datasource.Uint32, "us"), ch}
}

func burstValues(t0 uint32, n int) [][]float64 {
	v := make([]float64, n)
	for k := range v {
		v[k] = float64(k) * 0.25
	}
	return [][]float64{{float64(t0)}, v}
}

func dial(tb testing.TB, srv *udpstest.Server, opts Options) *Client {
	tb.Helper()
	if opts.LocalAddr == "" {
		opts.LocalAddr = "127.0.0.1:0"
	}
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = waitLong
	}
	c, err := Dial(srv.Addr().String(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

func connect(tb testing.TB, c *Client) *Config {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	cfg, err := c.Connect(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}

// session starts a server for sigs and a connected client.
func session(tb testing.TB, sigs []datasource.Signal, maxPayloadSize int) (*udpstest.Server, *Client) {
	tb.Helper()
	srv := udpstest.NewServer(tb, sigs, maxPayloadSize)
	c := dial(tb, srv, Options{})
	connect(tb, c)
	return srv, c
}

func payload(tb testing.TB, sigs []datasource.Signal, hrt uint64, vals [][]float64) []byte {
	tb.Helper()
	p, err := udpstest.Payload(sigs, hrt, vals)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func next(tb testing.TB, c *Client, u *Update) {
	tb.Helper()
	c.SetReadDeadline(time.Now().Add(waitLong))
	if err := c.Next(u); err != nil {
		tb.Fatalf("Next: %v", err)
	}
}

// expect reads the next update and checks its counter and Lost.
func expect(tb testing.TB, c *Client, u *Update, counter, lost uint32) {
	tb.Helper()
	next(tb, c, u)
	if u.Counter != counter || u.Lost != lost {
		tb.Fatalf("update counter %d lost %d, want counter %d lost %d", u.Counter, u.Lost, counter, lost)
	}
}

func send(tb testing.TB, srv *udpstest.Server, counter uint32, p []byte) {
	tb.Helper()
	if err := srv.SendUpdate(counter, p); err != nil {
		tb.Fatal(err)
	}
}

func sendDatagrams(tb testing.TB, srv *udpstest.Server, dgs [][]byte) {
	tb.Helper()
	for _, d := range dgs {
		if err := srv.SendDatagram(d); err != nil {
			tb.Fatal(err)
		}
	}
}

func datagrams(tb testing.TB, srv *udpstest.Server, counter uint32, p []byte) [][]byte {
	tb.Helper()
	d, err := srv.Datagrams(counter, p)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func shuffled(r *rand.Rand, d [][]byte) [][]byte {
	d = append([][]byte(nil), d...)
	r.Shuffle(len(d), func(i, j int) { d[i], d[j] = d[j], d[i] })
	return d
}

// nextErr calls Next with a generous deadline and returns its error.
func nextErr(c *Client, u *Update) error {
	c.SetReadDeadline(time.Now().Add(waitLong))
	return c.Next(u)
}

// scalarSession starts a server of one scalar signal and a client with
// opts, connected, and returns them with a payload of that signal.
func scalarSession(t *testing.T, opts Options) (*udpstest.Server, *Client, []byte) {
	t.Helper()
	sigs := scalarA()
	srv := udpstest.NewServer(t, sigs, 1400)
	c := dial(t, srv, opts)
	connect(t, c)
	return srv, c, payload(t, sigs, 1, nil)
}

// parsedConfig is the Config that ParseConfig makes of the CONFIG payload
// of sigs.
func parsedConfig(tb testing.TB, sigs []datasource.Signal) *Config {
	tb.Helper()
	msg, err := frame.AppendConfig(nil, frame.Records(sigs))
	if err != nil {
		tb.Fatal(err)
	}
	cfg, err := ParseConfig(msg)
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}
