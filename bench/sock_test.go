package bench

import (
	"net"
	"os"
	"strconv"
	"testing"
	"time"
)

// sustainEnv names the environment variable that sets how long each
// sustained-throughput step and each loopback baseline run lasts. The
// default keeps `-benchtime 1x` smoke runs fast; `make bench` sets 10s.
const sustainEnv = "STREAMERD_BENCH_SUSTAIN"

// sustainDefault is the step length without STREAMERD_BENCH_SUSTAIN.
const sustainDefault = 200 * time.Millisecond

// sustainDuration returns the step length: STREAMERD_BENCH_SUSTAIN parsed as
// a Go duration, or sustainDefault.
func sustainDuration(tb testing.TB) time.Duration {
	v := os.Getenv(sustainEnv)
	if v == "" {
		return sustainDefault
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		tb.Fatalf("%s=%q: want a positive Go duration such as 10s", sustainEnv, v)
	}
	return d
}

// rateEnv, when set, makes BenchmarkSustained offer this one rate
// (updates/s) for STREAMERD_BENCH_SUSTAIN in each iteration instead of
// searching: a fixed load to watch with other tools.
const rateEnv = "STREAMERD_BENCH_RATE"

// offeredRate returns the rate of rateEnv, or 0 when it is not set.
func offeredRate(tb testing.TB) float64 {
	v := os.Getenv(rateEnv)
	if v == "" {
		return 0
	}
	r, err := strconv.ParseFloat(v, 64)
	if err != nil || !(r > 0 && r <= searchMax) {
		tb.Fatalf("%s=%q: want updates per second, above 0 and at most %g", rateEnv, v, float64(searchMax))
	}
	return r
}

// rcvBufWant is the receive buffer the readers ask for: enough for about
// 100 ms of the fastest stream measured here, so a reader descheduled for a
// few milliseconds on a loaded 2-vCPU VM loses nothing.
const rcvBufWant = 32 << 20

// listenLoopback opens a UDP socket on 127.0.0.1 with a free port.
func listenLoopback(tb testing.TB) *net.UDPConn {
	tb.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
