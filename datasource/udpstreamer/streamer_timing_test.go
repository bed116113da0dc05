package udpstreamer

import (
	"fmt"
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
	"github.com/streamerd/streamerd/internal/latency"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/netthread"
	"github.com/streamerd/streamerd/quant"
	"github.com/streamerd/streamerd/rt/cpu"
)

// The minimal and burst examples of docs/udpstreamer.md.
func docScalarCfg() Config {
	return Config{Name: "Scalar", Signals: []datasource.Signal{
		{Name: "Counter", Type: datasource.Uint32},
		{Name: "Voltage", Type: datasource.Float32, Unit: "V", RangeMin: -10, RangeMax: 10, QuantizedType: quant.Uint16},
	}}
}

func docBurstCfg() Config {
	return Config{Name: "Burst", MaxPayloadSize: 1400, Signals: []datasource.Signal{
		{Name: "T0", Type: datasource.Uint32, Unit: "us"},
		{Name: "Ch1", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 1000, Unit: "V", TimeMode: datasource.FirstSample, TimeSignal: "T0", SamplingRate: 1e6},
	}}
}

// quantBurstCfg is the burst quantised to int16, for the serialiser.
func quantBurstCfg() Config {
	c := docBurstCfg()
	c.Name = "BurstInt16"
	c.Signals[1].QuantizedType, c.Signals[1].RangeMin, c.Signals[1].RangeMax = quant.Int16, -10, 10
	return c
}

func allocated(b *testing.B, cfg Config) *Streamer {
	s, err := New(cfg, metrics.NewSet(), discard())
	if err != nil {
		b.Fatal(err)
	}
	if err := s.AllocateMemory(); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkSerialise measures the network thread's work on one update
// before the send: quantise and copy the payload into its places in the
// wire buffer, then write the fragment headers.
func BenchmarkSerialise(b *testing.B) {
	for _, cfg := range []Config{docScalarCfg(), docBurstCfg(), quantBurstCfg()} {
		b.Run(cfg.Name, func(b *testing.B) {
			s := allocated(b, cfg)
			for i := range s.taken {
				s.taken[i] = byte(i)
			}
			b.ReportAllocs()
			b.SetBytes(int64(s.dataLayout.Payload))
			for b.Loop() {
				s.serialise()
				s.dataLayout.PutHeaders(s.wire, frame.Data, s.counter)
			}
		})
	}
}

// BenchmarkSerialiseFragmentSend measures one whole update on the network
// thread (serialise, lay out the fragments, hand them to the kernel) per
// send method, to a loopback socket that does not read.
func BenchmarkSerialiseFragmentSend(b *testing.B) {
	rcv := testenv.Loopback(b)
	for _, cfg := range []Config{docScalarCfg(), docBurstCfg()} {
		for _, m := range []netthread.SendMethod{netthread.MethodSendto, netthread.MethodSendmmsg, netthread.MethodGSO} {
			b.Run(fmt.Sprintf("%s/%s", cfg.Name, m), func(b *testing.B) {
				c := cfg
				c.Address, c.SendMethod = "127.0.0.1", m
				s := allocated(b, c)
				if err := s.PrepareNextState(); err != nil {
					b.Skip(err)
				}
				defer s.Close()
				s.sender.SetDestination(rcv.LocalAddr().(*net.UDPAddr).AddrPort())
				b.ReportAllocs()
				b.SetBytes(int64(s.dataLayout.WireSize()))
				for b.Loop() {
					s.serialise()
					s.dataLayout.PutHeaders(s.wire, frame.Data, s.counter)
					if _, err := s.sender.Send(s.wire, s.dataLayout.SegmentSize()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSynchronise measures the RT thread's cost of Synchronise at 64 B,
// 4 KiB and 64 KiB of signal memory: with no network thread ("nowaiter"),
// with HandOffDepth 32 and the cycle taken back after each call, outside
// the timing, as by a network thread that keeps up ("depth32"), the same
// with the ring full, so every call overwrites the oldest cycle in a
// buffer not written for 32 calls, the costliest case ("depth32full"), with
// the network thread pinned to another CPU and spinning on its EventSem,
// beside a bare Post and a bare copy in the same run ("spinning"), with the
// network thread parked on the EventSem and woken by every call
// ("parked"), beside a bare copy of the same size ("copy"), all in one run.
func BenchmarkSynchronise(b *testing.B) {
	for _, size := range []int{64, 4096, 65536} {
		cfg := Config{Name: "S", Address: "127.0.0.1", MaxPayloadSize: 65507, Signals: []datasource.Signal{
			{Name: "A", Type: datasource.Uint8, NumberOfDimensions: 1, NumberOfElements: size},
		}}
		b.Run(fmt.Sprintf("%dB/copy", size), func(b *testing.B) {
			src, dst := make([]byte, size), make([]byte, size)
			lat := latency.New(1 << 16)
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				t0 := time.Now()
				copy(dst, src)
				lat.Add(time.Since(t0))
			}
			lat.Report(b, "", "ns")
		})
		b.Run(fmt.Sprintf("%dB/nowaiter", size), func(b *testing.B) {
			timeSynchronise(b, allocated(b, cfg), size, nil)
		})
		for _, full := range []bool{false, true} {
			name := fmt.Sprintf("%dB/depth32", size)
			if full {
				name += "full"
			}
			b.Run(name, func(b *testing.B) {
				c := cfg
				c.HandOffDepth = 32
				s := allocated(b, c)
				var takeBack func()
				if !full { // a network thread that keeps up
					takeBack = func() {
						s.lock.FastLock(-1, 0)
						s.taken, _, _ = s.ring.take(s.taken)
						s.lock.FastUnLock()
					}
				}
				timeSynchronise(b, s, size, takeBack)
			})
		}
		b.Run(fmt.Sprintf("%dB/spinning", size), func(b *testing.B) {
			// The hand-off the paced wait aims for: the network thread,
			// pinned to CPU 1, spins on its event when the call comes from
			// CPU 0, so the call makes no system call and pays for the
			// copy and for the cache lines the two threads share. Beside
			// it, in the same run, the least any hand-off to another CPU
			// costs: a bare Post of the event the thread spins on
			// ("post-p50-ns", one cache line from CPU 1 to CPU 0 and
			// back), and a bare copy ("copy-p50-ns").
			if online, _ := cpu.OnlineMask(); !online.Has(0) || !online.Has(1) {
				b.Skip("needs CPUs 0 and 1")
			}
			c := cfg
			c.CPUMask, c.NetworkWait, c.NetworkSpin = cpu.Of(1), netthread.WaitSpin, netthread.MaxSpin
			s := start(b, c)
			runtime.LockOSThread() // a pinned thread is not handed back to the runtime
			if err := cpu.PinCurrentThread(cpu.Of(0)); err != nil {
				b.Skip(err)
			}
			settle := func() { // the network thread is spinning again
				for t0 := time.Now(); time.Since(t0) < 20*time.Microsecond; {
				}
			}
			dst := make([]byte, size)
			lat, post, cp := latency.New(1<<16), latency.New(1<<16), latency.New(1<<16)
			b.ReportAllocs()
			b.SetBytes(int64(size))
			var calls uint64
			for b.Loop() {
				// The last cycle taken (no client: counted so), or held
				// back by a lock timeout and published with this one.
				for t0 := time.Now(); s.m.noClient.Get() < calls && time.Since(t0) < time.Millisecond; {
				}
				calls++
				settle()
				t0 := time.Now()
				s.Synchronise()
				lat.Add(time.Since(t0))
				settle()
				t0 = time.Now()
				s.sem.Post()
				post.Add(time.Since(t0))
				settle()
				t0 = time.Now()
				copy(dst, s.mem.Block())
				cp.Add(time.Since(t0))
			}
			lat.Report(b, "", "ns")
			b.ReportMetric(float64(post.Percentile(50)), "post-p50-ns")
			b.ReportMetric(float64(cp.Percentile(50)), "copy-p50-ns")
			b.ReportMetric(100*float64(s.m.wakeups.Get())/float64(max(s.m.synchronised.Get(), 1)), "wakeups-%")
		})
		b.Run(fmt.Sprintf("%dB/parked", size), func(b *testing.B) {
			s := start(b, cfg)
			timeSynchronise(b, s, size, func() {
				// Wait until the network thread took the previous cycle
				// and went back to sleep, so every call wakes a parked
				// waiter.
				for s.m.noClient.Get()+s.m.skipped.Get() < s.m.synchronised.Get() {
					runtime.Gosched()
				}
			})
		})
	}
}

// timeSynchronise reports the latency of s.Synchronise, size bytes of
// signal memory a call, calling before (when not nil) ahead of each call,
// outside the timing.
func timeSynchronise(b *testing.B, s *Streamer, size int, before func()) {
	lat := latency.New(1 << 16)
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for b.Loop() {
		if before != nil {
			before()
		}
		t0 := time.Now()
		s.Synchronise()
		lat.Add(time.Since(t0))
	}
	lat.Report(b, "", "ns")
}

// BenchmarkEndToEnd measures Synchronise to the last fragment received by a
// client on loopback, for the doc's two configurations, beside the same
// datagrams (as many as the update has fragments, of the same sizes) sent
// and received bare on loopback in the same run ("bare"). Variants:
//
//   - default: the network thread as configured by default (unpinned,
//     parked on its EventSem between updates), the client blocked in its
//     read, as a program reading a socket is;
//   - "poll": the same server, the client polling its socket without
//     blocking, so its own wake-up is left out (bare has none either);
//   - "spin": the network thread pinned to CPU 1 with NetworkSpin 1 ms,
//     so it takes the cycle without being woken, and the polling client
//     pinned to CPU 0 (skipped with fewer than two CPUs).
func BenchmarkEndToEnd(b *testing.B) {
	for _, cfg := range []Config{docScalarCfg(), docBurstCfg()} {
		b.Run(cfg.Name, func(b *testing.B) { endToEnd(b, cfg, false, false) })
		b.Run(cfg.Name+"/poll", func(b *testing.B) { endToEnd(b, cfg, true, false) })
		b.Run(cfg.Name+"/spin", func(b *testing.B) { endToEnd(b, cfg, true, true) })
		b.Run(cfg.Name+"/bare", func(b *testing.B) { bareDatagram(b, cfg) })
	}
}

func endToEnd(b *testing.B, cfg Config, poll, spin bool) {
	c := cfg
	if spin {
		if online, _ := cpu.OnlineMask(); !online.Has(0) || !online.Has(1) {
			b.Skip("needs CPUs 0 and 1")
		}
		c.CPUMask, c.NetworkSpin = cpu.Of(1), time.Millisecond
		// This goroutine's thread is destroyed when it returns locked, so
		// the affinity goes with it.
		runtime.LockOSThread()
		if err := cpu.PinCurrentThread(cpu.Of(0)); err != nil {
			b.Skip(err)
		}
	}
	s := start(b, c)
	cl := connected(b, s)
	next := func() {
		if _, _, _, err := cl.next(5 * time.Second); err != nil {
			b.Fatal(err)
		}
	}
	if poll {
		p := newPoller(b, cl)
		next = func() { p.next() }
	}
	lat := latency.New(1 << 16)
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		s.Synchronise()
		next()
		lat.Add(time.Since(t0))
	}
	lat.Report(b, "", "us")
}

// bareDatagram sends one update's datagrams, of the sizes of its
// fragments, from one loopback socket and receives them all on another.
func bareDatagram(b *testing.B, cfg Config) {
	tx, _ := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	rx, _ := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	defer tx.Close()
	defer rx.Close()
	l := allocated(b, cfg).dataLayout
	msgs := make([][]byte, l.Fragments)
	for i := range msgs {
		msgs[i] = make([]byte, frame.HeaderSize+min(l.Chunk, l.Payload-i*l.Chunk))
	}
	buf := make([]byte, 65536)
	dst := rx.LocalAddr().(*net.UDPAddr).AddrPort()
	lat := latency.New(1 << 16)
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		for _, m := range msgs {
			tx.WriteToUDPAddrPort(m, dst)
		}
		for range msgs {
			rx.ReadFromUDPAddrPort(buf)
		}
		lat.Add(time.Since(t0))
	}
	lat.Report(b, "", "us")
}

// poller reads a raw client's socket without blocking, spinning until a
// datagram is there, and returns at each whole DATA update.
type poller struct {
	tb     testing.TB
	c      *rawClient
	rc     syscall.RawConn
	n      int
	err    error
	readFn func(fd uintptr) bool
}

func newPoller(tb testing.TB, c *rawClient) *poller {
	rc, err := c.conn.SyscallConn()
	if err != nil {
		tb.Fatal(err)
	}
	c.conn.SetReadDeadline(time.Time{}) // a deadline gone by fails every Read
	p := &poller{tb: tb, c: c, rc: rc}
	p.readFn = func(fd uintptr) bool {
		p.n, p.err = readFD(fd, p.c.buf)
		return true // never wait in the poller
	}
	return p
}

func (p *poller) next() {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		if err := p.rc.Read(p.readFn); err != nil {
			p.tb.Fatal(err)
		}
		if p.err != nil {
			continue
		}
		if payload, _, err := p.c.data.AddDatagram(p.c.buf[:p.n]); err == nil && payload != nil {
			return
		}
	}
	p.tb.Fatal("no update within 5 s")
}
