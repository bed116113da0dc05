package marte2

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/streamerd/streamerd/rt/cpu"
)

// thread writes the [[Threads]] table of t, if any imported GAM runs in
// it (gams, in creation order), and puts its GAMs in order.
func (b *builder) thread(t *threadState, gams []*outGAM) {
	d := t.def
	if len(gams) == 0 {
		b.im.skip(d.node.Pos(), d.path.String(), d.class, "writes no imported datasource")
		return
	}
	slices.SortStableFunc(gams, func(x, y *outGAM) int { return int(x.order - y.order) })
	th := &outThread{name: d.name(), gams: gams, functions: d.functions.Pos()}
	th.pos = d.node.Pos()
	f := b.im.frequency(t)
	th.comments = []string{
		fmt.Sprintf("%s (%s), %s:%d", d.path, d.class, b.im.file, d.node.Pos().Line),
		fmt.Sprintf("paced by %s (%s): Frequency on %s's input", t.timer.path, t.timer.class, t.timerGAM.path),
	}
	th.set("Name", tomlString(d.name()), "")
	th.setAt(t.freqPos, "Frequency", tomlFloat(f), "Hz")
	p := newParam(b.im, d.node, d.path.String, "Class", "Functions")
	p.copyMask(&th.table, "CPUs", "CPUMask")
	if !p.leaf("StackSize").IsZero() {
		b.im.approx(d.node.Leaf("StackSize").Pos(), d.path.show("StackSize"), "", "ignored: streamerd's RT thread is a locked OS thread with the default stack")
	}
	b.im.timerParams(t, f, &th.table)
	var names strings.Builder // its GAMs, which write prints last (GAMs = [...])
	for i, g := range gams {
		if i > 0 {
			names.WriteString(", ")
		}
		names.WriteString(g.name)
	}
	b.im.maps(d.node.Pos(), d.path.String(), d.class, "→ [[Threads]] %s at %s Hz running %s%s", d.name(), tomlFloat(f), names.String(), p.restNote("not RealTimeThread parameters"))
	b.im.approx(d.node.Pos(), d.path.String(), d.class, "MARTe2's GAMScheduler runs RT threads SCHED_FIFO (RealTimePriorityClass); the import leaves Priority = 0: add Priority = 1..%d to the thread (needs CAP_SYS_NICE) for the same", cpu.MaxPriority)
	b.c.threads = append(b.c.threads, th)
}

// frequency returns the thread's frequency as MARTe2 reads it (a float32).
func (im *importer) frequency(t *threadState) float64 {
	f, ok := parseFloat(t.frequency)
	if !ok || !(f > 0) || f > math.MaxFloat32 {
		im.errorf(t.freqPos, "%s: Frequency: expected a number > 0 Hz, got %q", t.timerGAM.path, t.frequency)
		return 1
	}
	return float64(float32(f))
}

// schedulerGranularity is MARTe2's default scheduler granularity on Linux
// (SCHED_GRANULARITY_US): Sleep::NoMore sleeps whole multiples of it and
// busy-waits the rest.
const schedulerGranularity = 10 * time.Millisecond

// defaultSleep says how MARTe2's SleepNature = Default differs from
// streamerd's at frequency f.
func defaultSleep(f float64) string {
	period := time.Duration(math.Round(1e9 / f))
	spin := fmt.Sprintf("up to %v of each %v cycle", schedulerGranularity, period)
	if period <= schedulerGranularity {
		spin = fmt.Sprintf("all of each %v cycle, nearly a whole CPU", period)
	}
	return fmt.Sprintf("MARTe2's Default (Sleep::NoMore) sleeps only whole scheduler granularities (%v unless MARTeApp's loader sets SchedulerGranularity) and busy-waits the rest: %s; streamerd's Default sleeps on a timer: the same data, much less CPU, more wake-up jitter; SleepNature = \"Busy\" on the thread spins as MARTe2 does", schedulerGranularity, spin)
}

// timerParams maps the LinuxTimer's parameters onto the thread.
func (im *importer) timerParams(t *threadState, f float64, th *table) {
	ds := t.timer
	p := newParam(im, ds.node, ds.path.String, "Class", "Signals")
	nature, hasNature := p.str("SleepNature")
	natureAt := ds.node.Pos()
	if hasNature {
		natureAt = p.pos("SleepNature")
	}
	pct, hasPct := p.uint("SleepPercentage", 100)
	switch {
	case nature == "Busy" && hasPct && pct > 0:
		th.setAt(natureAt, "SleepNature", tomlString("Hybrid"), "MARTe2 Busy with SleepPercentage")
		th.setAt(p.pos("SleepPercentage"), "SleepPercentage", tomlInt(int64(pct)), "")
	case nature == "Busy":
		th.setAt(natureAt, "SleepNature", tomlString("Busy"), "")
	default:
		if nature != "" && nature != "Default" {
			im.approx(natureAt, ds.path.show("SleepNature"), "", "%q is not Default or Busy; the thread sleeps (Default)", nature)
		}
		im.approx(natureAt, ds.path.show("SleepNature"), "", "%s", defaultSleep(f))
		th.setAt(natureAt, "SleepNature", tomlString("Default"), "sleeps on a timer; MARTe2's Default busy-waits (\"Busy\" spins as it does)")
	}
	period := time.Duration(math.Round(1e9 / f))
	text := fmt.Sprintf("paces thread %s at %s Hz (period %v); Counter and Time come from streamerd's Timer", t.def.name(), tomlFloat(f), period)
	if mode, _ := p.str("ExecutionMode"); mode != "RealTimeThread" {
		im.approx(ds.node.Pos(), ds.path.String(), ds.class, "ExecutionMode IndependentThread: MARTe2 wakes the RT thread from a timer thread; streamerd's RT thread sleeps to its own deadlines (as RealTimeThread mode), with the same Counter and Time")
	}
	for _, k := range []string{"CPUMask", "Phase", "+TimeProvider", "StackSize"} {
		if l := p.leaf(k); !l.IsZero() {
			im.approx(l.Pos(), ds.path.show(k), "", "ignored: streamerd's thread paces itself on CLOCK_MONOTONIC")
		}
	}
	if us := 1e6 / f; us != math.Trunc(us) {
		im.approx(t.freqPos, t.timerGAM.path.show("Frequency"), "", "MARTe2's Time is Counter × %d µs (the period truncated to whole µs); streamerd's is Counter × %v: Time, and waveforms evaluated at it, drift apart by %.3g µs per cycle", uint32(us), period, us-math.Trunc(us))
	}
	im.maps(ds.node.Pos(), ds.path.String(), ds.class, "%s%s", text, p.restNote("not LinuxTimer parameters"))
}
