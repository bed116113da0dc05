// Package rt runs MARTe2-style real-time threads: a locked, pinned OS thread that wakes at absolute deadlines and runs GAMs then brokers once per period.
//
// docs/embedding.md shows an embedding program's control loop on it, and
// how to choose its CPUs.
//
// Usage:
//
//  1. Describe the thread in a Config (period, CPUMask, priority, sleep
//     nature); print Validate's warnings, then call New.
//  2. Build the steps: GAMs then brokers, each an Executable (anything
//     with an Execute() error method). Steps that need the built-in
//     signals keep the pointers from Counter and Time.
//  3. Start(ctx): the thread runs until Stop or until ctx is done. Read its
//     counts from any goroutine with Stats, or ReadStats into a Stats
//     filled before (no allocation). For timings, give Config a Monitor:
//     the RT thread hands it every cycle's figures and keeps none.
//  4. Stop. It returns within one period plus 50 ms unless a step blocks.
//
// # Pacing
//
// Like MARTe2's LinuxTimer, deadlines are absolute: deadline n+1 is
// deadline n plus the period, so sleep jitter never accumulates. Default
// sleeps with clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) on the locked
// thread (time.Sleep would park the goroutine and go through the Go timer
// and scheduler), restarting on EINTR (the Go runtime's preemption signal)
// and in chunks of at most 50 ms so Stop is seen. A sleep that fails
// otherwise is counted (Stats.Err reports it) and the thread spins to that
// deadline instead. Busy spins on the vDSO
// clock. Hybrid sleeps SleepPercentage of the period, counted from the
// previous deadline, and spins the rest. Clocks are read with time.Since
// (CLOCK_MONOTONIC through the vDSO, 25 ns), never with a system call.
//
// A cycle whose work ends after the next deadline is an overrun: the
// deadlines already gone are skipped (MissedPeriods) and the Counter signal
// jumps by them, as LinuxTimer's does, so Counter always numbers the
// deadline the cycle woke for (1 for the first). Time is Counter × period
// in µs.
//
// # Counts and timings
//
// Stats counts, per thread, cycles, overruns, missed periods and failed
// step executions, and per step its failures and last error. A failing
// step is counted and the cycle goes on, as in MARTe2; Stats.Err
// summarises the failures and failed sleeps. The RT thread publishes the
// counts once per cycle under a seqlock of atomic words (8 ns for four
// steps, BenchmarkPublish); ReadStats retries while a publish is in
// progress and never blocks the RT thread (33 ns, BenchmarkReadStats;
// medians of go test -run '^$' -bench 'Publish|ReadStats' -count 5 ./rt/
// on the 2-vCPU VM below, loaded).
//
// The timings are Config.Monitor's: after every cycle the RT thread calls
// it with a Cycle, the deadline the cycle woke for on cpu.Now's clock, its
// wake-up lateness, its cycle time start to start (MARTe2's CycleTime) and
// each step's execution time (MARTe2's ExecTime; ReadTime and WriteTime
// are the brokers' own steps here). Histograms, percentiles and late-cycle
// forensics are built from them off the RT thread, by whoever the Monitor
// hands them to (the daemon stores them in lock-free rings: docs/timings.md);
// ThreadID names the thread under /proc/self/task for such a monitor.
//
// # Scheduling and the Go runtime
//
// The thread calls runtime.LockOSThread and never unlocks: when it stops,
// the runtime destroys the OS thread, and its affinity and SCHED_FIFO
// priority die with it. The affinity is read back and checked at Start.
// The thread still needs a Go P to run Go code and is still stopped by the
// GC's stop-the-world phases (tens of µs). GCOff removes the GC cycles for
// the run if nothing else allocates much (see Config.GCOff for the
// trade-off); LockMemory removes page faults.
//
// The runtime's monitor thread takes the P of a goroutine that has not been
// rescheduled for 10 ms whenever it enters a system call: an RT thread that
// never gave its P back would lose it at every sleep and have to find one
// again at every wake-up, under the scheduler's lock and after the monitor
// has let go of it, which is where a loaded machine held it for
// milliseconds, while the monitor polled every 20 µs (3 to 6 % of a CPU). So
// a thread whose period is under 10 ms hands its P to the scheduler
// (runtime.Gosched) at least every 8 ms, right after a cycle with at least
// 200 µs left before the next deadline, and keeps it through its sleeps
// between (Stats.Yields counts the hand-offs); a period of 200 µs or less
// leaves no such slack, and the thread never yields. A hand-off wakes
// another thread of the process to give the P back: about 30 µs, more when
// the machine is busier than its CPUs; one that comes back after the
// deadline is reported in Cycle.YieldLate, and the thread then yields no
// more for a second (twice as long after each further late one, up to 64 s,
// until 1024 have come back in time). With GOMAXPROCS 1 it never yields. On
// a 2-vCPU KVM guest (Intel Xeon) at 1 kHz, runs of 10 000 cycles alternated
// with the same code built without the yields: the process's CPU went from
// 9.8 % to 4.3–4.6 % at SCHED_FIFO on an idle machine, and beside two
// CPU-bound processes from 3.9–8.2 % to 1.9–3.8 % (SCHED_FIFO) and from
// 4.7–7.6 % to 2.7–5.9 % (normal scheduling), with the SCHED_FIFO wake-up
// p99 from 36–48 µs to 25–39 µs (73 µs in one run of eight). Under normal
// scheduling beside that load the tail is the load's: one set of three runs
// each way went from a p99 of 1.1–2.9 ms to 61–100 µs, a later one
// overlapped (75 µs to 2.9 ms without the yields, 43 µs to 3.0 ms with
// them):
//
//	go test -run '^$' -bench 'WakeLatency/1000Hz/Default' -benchtime 10000x ./rt/
//
// A spinning (Busy, or Hybrid with a low SleepPercentage) SCHED_FIFO thread
// hits the kernel's RT throttling (sched_rt_runtime_us = 950000 of 1000000):
// a stall of up to 50 ms every second (see Busy/fifo at 1 kHz below, max
// 60 ms). Validate warns when a thread spins more than the throttling
// budget minus 5 points for its work (90 % of the period by default, so
// Hybrid needs SleepPercentage >= 10); the config loader gives Validate's
// warnings at the thread's keys. Two spinning threads pinned to the same
// CPU starve each other (under SCHED_FIFO one never runs); Validate cannot
// see other threads, so
// keeping them apart is the caller's job (the config loader warns when two
// spinning SCHED_FIFO threads may share a CPU). Sleeping most of the period
// (Default, or Hybrid with a large SleepPercentage) avoids both.
//
// # Measurements
//
// BenchmarkWakeLatency (the latencies collected by a Monitor), 2-vCPU AMD
// EPYC VM, thread pinned to CPU 1, an empty cycle, 5000 cycles each,
// Hybrid with SleepPercentage 80, fifo = SCHED_FIFO 80 (run as root). The machine was heavily loaded by other test
// binaries (load average 12 to 16 on 2 CPUs), which is what the non-fifo
// rows mostly show. Wake-up latency and |cycle time − period| in µs:
//
//	                       wake p50  wake p99  wake max  cycdev p99  cycdev max  overruns
//	1 kHz  Default               80      4013     63262        3896       62740       322
//	1 kHz  Default fifo          33       643     13555         775       13522        21
//	1 kHz  Busy                   0     16058    360480       16058      360480       585
//	1 kHz  Busy fifo              0         6     59993          46       59993        10
//	1 kHz  Hybrid                 0      4876     38890        4829       38890       226
//	1 kHz  Hybrid fifo            0        32      4353         131        4353         2
//	10 kHz Default               64      1180     13803        1113       13750       109
//	10 kHz Default fifo          13        24       426          14         409         8
//	10 kHz Busy                   0      3048     60345        3048       60299        81
//	10 kHz Busy fifo              0         6       116          21         116         2
//	10 kHz Hybrid                45        74      5195          50        5149        31
//	10 kHz Hybrid fifo            0         8       244          15         244         4
//
// A second run with the machine less loaded (load average 5 to 6):
//
//	                       wake p50  wake p99  wake max  cycdev p99  cycdev max  overruns
//	1 kHz  Default               79       979      4431         916        4357        45
//	1 kHz  Default fifo          34        85       734          66         681         0
//	1 kHz  Busy                   0         0      6237           7        6237         7
//	1 kHz  Busy fifo              0        25     48129          44       48129         6
//	1 kHz  Hybrid                 0       384      5126         692        5126        41
//	1 kHz  Hybrid fifo            0         0      2272           0        2272         2
//	10 kHz Default               64       245     18828         164       18763        76
//	10 kHz Default fifo          14        38       469          32         456         7
//	10 kHz Busy                   0      3341     45191        3341       45191       102
//	10 kHz Busy fifo              0         1      4941           9        4941         5
//	10 kHz Hybrid                47       180     17382         139       17327       199
//	10 kHz Hybrid fifo            0       114      7894         105        7894        54
//
// For comparison, MARTe2 itself on the same kind of VM (quiet): cycle-time
// deviation p99 about 54 µs at 1 kHz and 44 µs at 10 kHz with a sleeping
// LinuxTimer; cyclictest maximum 3 to 4 ms. At 10 kHz Hybrid with 80 %
// sleep leaves only 20 µs of spin, less than the VM's sleep wake-up
// latency, so it behaves like Default unless SCHED_FIFO shortens the
// latency. Reproduce with:
//
//	go test -run '^$' -bench . -benchtime 5000x ./rt/
//
// The fifo rows are skipped without root or CAP_SYS_NICE.
package rt
