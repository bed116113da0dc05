package rt

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/streamerd/streamerd/rt/cpu"
)

// Executable is one step of the cycle, MARTe2's ExecutableI: a GAM or a
// broker. Execute runs on the RT thread, must not block, and should not
// allocate. A non-nil error is counted against the step and the cycle goes
// on.
type Executable interface {
	Execute() error
}

// Step is a named GAM or broker. The name labels its statistics.
type Step struct {
	Name string
	Exec Executable
}

// SleepNature says how the RT thread waits for its next deadline, as
// LinuxTimer's SleepNature.
type SleepNature uint8

const (
	// Default sleeps with clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)
	// until the deadline.
	Default SleepNature = iota
	// Busy spins on the clock until the deadline: lowest latency, one CPU
	// used up entirely.
	Busy
	// Hybrid sleeps for SleepPercentage of the period (counted from the
	// previous deadline) and spins for the rest.
	Hybrid
)

var sleepNatureNames = [...]string{Default: "Default", Busy: "Busy", Hybrid: "Hybrid"}

// String returns the MARTe2 spelling.
func (s SleepNature) String() string {
	if s > Hybrid {
		return fmt.Sprintf("SleepNature(%d)", uint8(s))
	}
	return sleepNatureNames[s]
}

// ParseSleepNature reads "Default", "Busy" or "Hybrid" (any case).
func parseSleepNature(s string) (SleepNature, error) {
	for n, name := range sleepNatureNames {
		if strings.EqualFold(s, name) {
			return SleepNature(n), nil
		}
	}
	return 0, fmt.Errorf("rt: unknown SleepNature %q (want Default, Busy or Hybrid)", s)
}

// defaultName is the Name of a thread whose Config gives none.
const defaultName = "RTThread"

// Config describes an RT thread. Exactly one of Frequency and Period sets
// the period (if both are given they must agree to the nanosecond).
type Config struct {
	// Name names the thread in errors, warnings, Stats and the OS thread
	// (top -H shows its first 15 bytes); "RTThread" when empty.
	Name      string
	Frequency float64       // cycles per second (Hz)
	Period    time.Duration // alternative to Frequency

	CPUMask  cpu.Mask // CPUs the thread may run on; 0: no pinning
	Priority int      // 0: normal scheduling; 1..99: SCHED_FIFO (cpu.ValidatePriority)

	SleepNature     SleepNature
	SleepPercentage int // Hybrid: percent of the period slept, 0..100

	// LockMemory calls mlockall(MCL_CURRENT|MCL_FUTURE) at Start. It acts
	// on the whole process and is never undone.
	LockMemory bool

	// GCOff turns the garbage collector off (GOGC=off) from Start to Stop
	// and sets MemoryLimit (bytes, required) as a safety net: the GC then
	// runs only if the heap reaches the limit. The RT thread itself does
	// not allocate, so with GC off it is never stopped by a GC cycle unless
	// other goroutines allocate up to the limit. The settings are
	// process-wide: with several such threads the GC stays off while any of
	// them runs, under the smallest of their MemoryLimits, and the last to
	// stop restores the settings from before the first started. Trade-off: memory
	// allocated by other goroutines is not reclaimed until the limit is
	// reached, and then collections come back to back (the runtime caps
	// the limit-driven GC CPU at about 50 %), so size MemoryLimit well
	// above the expected garbage per run.
	GCOff       bool
	MemoryLimit int64

	// Monitor, if not nil, is called on the RT thread after every cycle,
	// with what the thread measured of it: the raw material of timing
	// histograms, percentiles and late-cycle forensics, which the thread
	// itself does not keep. It runs inside the cycle and delays the next
	// deadline's wait by what it takes, so it must not block, allocate or
	// make system calls: store the figures in preallocated memory (an
	// rtsync.SampleRing, for example) for another goroutine to read. *c and
	// c.Steps are the thread's, reused every cycle: copy what must outlive
	// the call.
	Monitor func(c *Cycle)
}

// maxPeriod bounds the period so that nanosecond arithmetic cannot overflow
// over decades of running.
const maxPeriod = time.Hour

// period returns the configured period.
func (c *Config) period() (time.Duration, error) {
	var p time.Duration
	if c.Frequency != 0 {
		if !(c.Frequency > 0) || math.IsInf(c.Frequency, 0) {
			return 0, fmt.Errorf("rt: Frequency %v Hz is not a positive number", c.Frequency)
		}
		if pf := 1e9 / c.Frequency; pf > float64(maxPeriod) {
			// Beyond what a Duration holds, for the lowest frequencies.
			return 0, fmt.Errorf("rt: Frequency %v Hz gives a period of %.3g s, out of range 1µs..%v", c.Frequency, pf/1e9, maxPeriod)
		}
		p = time.Duration(math.Round(1e9 / c.Frequency))
		if c.Period != 0 && c.Period != p {
			return 0, fmt.Errorf("rt: Frequency %v Hz (period %v) disagrees with Period %v", c.Frequency, p, c.Period)
		}
	} else {
		p = c.Period
	}
	switch {
	case c.Frequency == 0 && c.Period == 0:
		return 0, errors.New("rt: set Frequency or Period")
	case c.Frequency != 0 && (p < time.Microsecond || p > maxPeriod):
		return 0, fmt.Errorf("rt: Frequency %v Hz gives a period of %v, out of range 1µs..%v", c.Frequency, p, maxPeriod)
	case p < time.Microsecond || p > maxPeriod:
		return 0, fmt.Errorf("rt: Period %v out of range 1µs..%v", p, maxPeriod)
	}
	return p, nil
}

// rtThrottle reads the kernel's RT throttling budget; ok is false if it
// cannot be read.
func rtThrottle() (runtimeUs, periodUs int64, ok bool) {
	read := func(name string) (int64, bool) {
		b, err := os.ReadFile("/proc/sys/kernel/" + name)
		if err != nil {
			return 0, false
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return v, err == nil
	}
	r, ok1 := read("sched_rt_runtime_us")
	p, ok2 := read("sched_rt_period_us")
	return r, p, ok1 && ok2
}

// maxFIFOSpin is the largest share of its period (percent) a SCHED_FIFO
// thread may spin and still leave the CPU often enough for the kernel's RT
// throttling budget (runtime/period, 95 % by default), with 5 points kept
// for the cycle's own work: 90 % by default, so Hybrid needs
// SleepPercentage >= 10. The config loader gives Validate's warnings.
func maxFIFOSpin(rtRun, rtPer int64, ok bool) int {
	if !ok || rtPer <= 0 || rtRun <= 0 {
		return 90
	}
	return max(int(100*rtRun/rtPer)-5, 0)
}

// Validate checks cfg and returns warnings for configurations that work but
// are likely to misbehave, chiefly a spinning SCHED_FIFO thread, which the
// kernel's RT throttling stalls for tens of milliseconds every second (and
// which, with throttling disabled, can lock its CPU). Two spinning threads
// pinned to one CPU starve each other; Validate cannot see other threads,
// so keeping them apart is the caller's job.
func Validate(cfg Config) (warnings []string, err error) {
	cfg.Name = cmp.Or(cfg.Name, defaultName)
	p, err := cfg.period()
	if err != nil {
		return nil, err
	}
	if err := cpu.ValidatePriority(cfg.Priority); err != nil {
		return nil, fmt.Errorf("rt: Priority: %w", err)
	}
	if cfg.SleepNature > Hybrid {
		return nil, fmt.Errorf("rt: unknown %v", cfg.SleepNature)
	}
	if cfg.SleepNature == Hybrid && (cfg.SleepPercentage < 0 || cfg.SleepPercentage > 100) {
		return nil, fmt.Errorf("rt: SleepPercentage %d out of range 0..100", cfg.SleepPercentage)
	}
	if cfg.GCOff && cfg.MemoryLimit <= 0 {
		return nil, errors.New("rt: GCOff needs a positive MemoryLimit as a safety net")
	}
	spin := 0 // percent of the period spent spinning
	switch cfg.SleepNature {
	case Busy:
		spin = 100
	case Hybrid:
		spin = 100 - cfg.SleepPercentage
	}
	if spin > 0 && cfg.Priority > 0 {
		rtRun, rtPer, ok := rtThrottle()
		switch {
		case ok && rtRun < 0:
			warnings = append(warnings, fmt.Sprintf(
				"%s: spins %d%% of each period under SCHED_FIFO with RT throttling disabled: it can lock its CPU; pin it to a CPU nothing else needs", cfg.Name, spin))
		case spin > maxFIFOSpin(rtRun, rtPer, ok):
			budget := "the kernel's RT throttling"
			if ok {
				budget = fmt.Sprintf("the kernel's RT throttling (sched_rt_runtime_us=%d of %d)", rtRun, rtPer)
			}
			warnings = append(warnings, fmt.Sprintf(
				"%s: spins %d%% of each period under SCHED_FIFO: with the cycle's work on top, %s can stall it for tens of ms every second; use Default, or Hybrid with SleepPercentage >= %d",
				cfg.Name, spin, budget, 100-maxFIFOSpin(rtRun, rtPer, ok)))
		}
		if cfg.CPUMask == 0 {
			warnings = append(warnings, fmt.Sprintf(
				"%s: a spinning SCHED_FIFO thread without CPUMask can starve other threads; pin it", cfg.Name))
		}
	}
	if cfg.SleepNature == Default && p < 100*time.Microsecond {
		warnings = append(warnings, fmt.Sprintf(
			"%s: period %v with Default sleep: wake-up latency on a VM is typically 50-100 µs; consider Hybrid", cfg.Name, p))
	}
	return warnings, nil
}
