//go:build unix

package udpstreamer

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
	"github.com/streamerd/streamerd/internal/latency"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/netthread"
	"github.com/streamerd/streamerd/rt"
	"github.com/streamerd/streamerd/rt/cpu"
)

// waitRate is the rate BenchmarkWait runs at: the default application's.
const waitRate = 1000.0

// BenchmarkWait sets the network thread's waits side by side at 1 kHz,
// everything else at its default (RT and network threads unpinned, normal
// scheduling), for the doc's scalar stream and 4 KiB of signal memory in
// one datagram. An RT thread calls Synchronise once a period and a client
// blocked in its read receives every update. For each wait (paced, the
// default; spin, NetworkSpin 1 ms; park) it reports:
//
//   - sync-p50-ns, sync-p99-ns: what Synchronise costs the RT thread, and
//     copy-p50-ns, a bare copy of the same signal memory timed in the same
//     cycle; sync-x-copy is their ratio at p50;
//   - e2e-p50-us, e2e-p99-us: from Synchronise to the whole update at the
//     client. The baseline, "bare", sends one datagram of the update's size
//     from an RT thread at the same rate to a reader blocked the same way;
//   - net-cpu-%: the network thread's CPU time in % of one CPU (Linux);
//   - wakeups-%: the Synchronise calls that found the network thread asleep
//     and woke it with a system call (network_wakeups_total);
//   - lead-us, late-us: how early the paced wait wakes before a cycle is
//     due and how long past it it spins, as it learnt them.
//
// The fifo variants run the RT thread at SCHED_FIFO 80 and the network
// thread at 70, still unpinned (skipped without the right to).
//
// Each iteration runs for STREAMERD_BENCH_SUSTAIN (1 s by default, at most
// 5 s) after a second in which the paced wait learns.
func BenchmarkWait(b *testing.B) {
	d := spinDuration(b)
	big := Config{Name: "4096B", MaxPayloadSize: 65507, Signals: []datasource.Signal{
		{Name: "A", Type: datasource.Uint8, NumberOfDimensions: 1, NumberOfElements: 4096},
	}}
	for _, cfg := range []Config{docScalarCfg(), big} {
		for _, fifo := range []bool{false, true} {
			suffix := ""
			if fifo {
				suffix = "/fifo"
			}
			for _, w := range []struct {
				name string
				mode netthread.WaitMode
				spin time.Duration
			}{{"paced", netthread.WaitPaced, 0}, {"spin", netthread.WaitSpin, time.Millisecond}, {"park", netthread.WaitPark, 0}} {
				b.Run(cfg.Name+"/"+w.name+suffix, func(b *testing.B) {
					c := cfg
					c.Name = "W" + cfg.Name + w.name // the network thread's name
					if fifo {
						c.Name += "F"
					}
					c.Address, c.NetworkWait, c.NetworkSpin = "127.0.0.1", w.mode, w.spin
					c.CyclePeriod = time.Duration(float64(time.Second) / waitRate)
					rtPrio := 0
					if fifo {
						skipWithoutFIFO(b)
						c.Priority, rtPrio = 70, 80
					}
					waitRun(b, c, rtPrio, d)
				})
			}
			b.Run(cfg.Name+"/bare"+suffix, func(b *testing.B) {
				rtPrio := 0
				if fifo {
					skipWithoutFIFO(b)
					rtPrio = 80
				}
				waitBare(b, cfg, rtPrio, d)
			})
		}
	}
}

// sentTimes holds, per cycle counter (mod its length), when Synchronise
// (or the bare send) was called: ns since base.
type sentTimes struct {
	base time.Time
	at   [4096]atomic.Int64
}

func (st *sentTimes) mark(ctr uint32) { st.at[ctr%4096].Store(int64(time.Since(st.base))) }

func (st *sentTimes) since(ctr uint32) int64 {
	return int64(time.Since(st.base)) - st.at[ctr%4096].Load()
}

// waitStep is the RT thread's cycle in BenchmarkWait: a counter into signal
// memory, a timed bare copy of the signal memory, a timed Synchronise.
type waitStep struct {
	s        *Streamer
	dst      []byte
	ctr      uint32
	sent     *sentTimes
	on       *atomic.Bool
	sync, cp *latency.Samples
}

func (x *waitStep) Execute() error {
	x.ctr++
	binary.LittleEndian.PutUint32(x.s.mem.Block(), x.ctr)
	t0 := time.Now()
	copy(x.dst, x.s.mem.Block())
	dc := time.Since(t0)
	x.sent.mark(x.ctr)
	t1 := time.Now()
	err := x.s.Synchronise()
	ds := time.Since(t1)
	if x.on.Load() {
		x.cp.Add(dc)
		x.sync.Add(ds)
	}
	return err
}

func waitRun(b *testing.B, c Config, rtPrio int, d time.Duration) {
	s := start(b, c)
	cl := connected(b, s)
	sent := &sentTimes{base: time.Now()}
	var on atomic.Bool
	n := int(float64(d+time.Second)*waitRate/float64(time.Second)) * (b.N + 1)
	step := &waitStep{s: s, dst: make([]byte, s.mem.Size()), sent: sent, on: &on,
		sync: latency.New(n), cp: latency.New(n)}
	e2e := latency.New(n)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			p, _, _, err := cl.next(10 * time.Second)
			if err != nil {
				return // the connection closed at the end
			}
			if on.Load() {
				e2e.AddNanos(sent.since(binary.LittleEndian.Uint32(p[8:])))
			}
		}
	})
	th, err := rt.New(rt.Config{Name: "RT", Frequency: waitRate, Priority: rtPrio}, nil, []rt.Step{{Name: "sync", Exec: step}})
	if err != nil {
		b.Fatal(err)
	}
	if err := th.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	time.Sleep(time.Second) // the paced wait learns
	var cpu, elapsed, cpuElapsed time.Duration
	var syncs, wakeups uint64
	proc0, procOK := testenv.ProcessCPU()
	b.ResetTimer()
	for b.Loop() {
		c0, id0, ok0 := testenv.ThreadCPU(c.Name)
		s0, w0, t0 := s.m.synchronised.Get(), s.m.wakeups.Get(), time.Now()
		on.Store(true)
		time.Sleep(d)
		on.Store(false)
		el := time.Since(t0)
		c1, id1, ok1 := testenv.ThreadCPU(c.Name)
		if ok0 && ok1 && id0 == id1 {
			cpu, cpuElapsed = cpu+c1-c0, cpuElapsed+el
		}
		elapsed += el
		syncs, wakeups = syncs+s.m.synchronised.Get()-s0, wakeups+s.m.wakeups.Get()-w0
	}
	b.StopTimer()
	proc1, ok := testenv.ProcessCPU()
	procOK = procOK && ok
	th.Stop()
	cl.conn.Close()
	wg.Wait()
	step.sync.Report(b, "sync-", "ns")
	b.ReportMetric(float64(step.cp.Percentile(50)), "copy-p50-ns")
	if p := step.cp.Percentile(50); p > 0 {
		b.ReportMetric(float64(step.sync.Percentile(50))/float64(p), "sync-x-copy")
	}
	e2e.Report(b, "e2e-", "us")
	if cpuElapsed > 0 { // the thread found by name, on Linux
		b.ReportMetric(100*float64(cpu)/float64(cpuElapsed), "net-cpu-%")
	}
	if procOK {
		// The whole process: the benchmark's client and the Go runtime's
		// own threads besides the RT and network threads.
		b.ReportMetric(100*float64(proc1-proc0)/float64(elapsed), "proc-cpu-%")
	}
	b.ReportMetric(100*float64(wakeups)/float64(max(syncs, 1)), "wakeups-%")
	if st := s.wait.Stats(); c.NetworkWait == netthread.WaitPaced {
		b.ReportMetric(float64(st.Lead)/1e3, "lead-us")
		b.ReportMetric(float64(st.Late)/1e3, "late-us")
	}
	b.ReportMetric(float64(syncs)/elapsed.Seconds(), "cycles/s")
}

// bareStep sends one datagram per cycle, its counter in the place the
// update's counter takes (after the 8-byte hrtTimestamp).
type bareStep struct {
	conn *net.UDPConn
	dst  netip.AddrPort
	msg  []byte
	ctr  uint32
	sent *sentTimes
}

func (x *bareStep) Execute() error {
	x.ctr++
	binary.LittleEndian.PutUint32(x.msg[frame.HeaderSize+8:], x.ctr)
	x.sent.mark(x.ctr)
	_, err := x.conn.WriteToUDPAddrPort(x.msg, x.dst)
	return err
}

// waitBare is BenchmarkWait's baseline: the datagram of one update of cfg
// (its first fragment when it has several) sent at waitRate by an RT
// thread to a reader blocked in its read.
func waitBare(b *testing.B, cfg Config, rtPrio int, d time.Duration) {
	tx, rx := testenv.Loopback(b), testenv.Loopback(b)
	defer tx.Close()
	l := allocated(b, cfg).dataLayout
	if l.Fragments != 1 {
		b.Skip(fmt.Sprintf("%d fragments", l.Fragments))
	}
	sent := &sentTimes{base: time.Now()}
	step := &bareStep{conn: tx, dst: rx.LocalAddr().(*net.UDPAddr).AddrPort(), msg: make([]byte, frame.HeaderSize+l.Payload), sent: sent}
	var on atomic.Bool
	e2e := latency.New(int(float64(d+time.Second)*waitRate/float64(time.Second)) * (b.N + 1))
	var wg sync.WaitGroup
	wg.Go(func() {
		buf := make([]byte, 65536)
		for {
			n, _, err := rx.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			if on.Load() && n >= frame.HeaderSize+12 {
				e2e.AddNanos(sent.since(binary.LittleEndian.Uint32(buf[frame.HeaderSize+8:])))
			}
		}
	})
	th, err := rt.New(rt.Config{Name: "RT", Frequency: waitRate, Priority: rtPrio}, nil, []rt.Step{{Name: "send", Exec: step}})
	if err != nil {
		b.Fatal(err)
	}
	if err := th.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	time.Sleep(time.Second)
	b.ResetTimer()
	for b.Loop() {
		on.Store(true)
		time.Sleep(d)
		on.Store(false)
	}
	b.StopTimer()
	th.Stop()
	rx.Close()
	wg.Wait()
	e2e.Report(b, "e2e-", "us")
}

// skipWithoutFIFO skips b where a thread may not take SCHED_FIFO.
func skipWithoutFIFO(b *testing.B) {
	_, done, err := cpu.StartThread(0, 1, func() {})
	if err != nil {
		b.Skipf("SCHED_FIFO: %v", err)
	}
	<-done
}
