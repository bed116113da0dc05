package marte2

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// thread writes the [[Threads]] table of t, if any imported GAM runs in
// it (gams, in creation order), and puts its GAMs in order.
func (b *builder) thread(t *threadState, gams []*outGAM) {
	d := t.def
	if len(gams) == 0 {
		b.im.skip(d.node.Pos, d.path, d.class, "writes no imported datasource")
		return
	}
	sort.SliceStable(gams, func(i, j int) bool { return gams[i].order < gams[j].order })
	th := &outThread{name: d.name, gams: gams}
	th.comments = []string{
		fmt.Sprintf("%s (%s), %s:%d", d.path, d.class, b.im.file, d.node.Pos.Line),
		fmt.Sprintf("paced by %s (%s): Frequency on %s's input", t.timer.path, t.timer.class, t.timerGAM.path),
	}
	th.set("Name", tomlString(d.name), "")
	th.set("Frequency", tomlFloat(b.im.frequency(t)), "Hz")
	p := newParam(b.im, d.node, d.path, "Class", "Functions")
	p.copyMask(&th.table, "CPUs", "CPUMask")
	if p.leaf("StackSize") != nil {
		b.im.approx(d.node.Leaf("StackSize").Pos, d.path+".StackSize", "", "ignored: streamerd's RT thread is a locked OS thread with the default stack")
	}
	b.im.timerParams(t, &th.table)
	names := make([]string, len(gams))
	for i, g := range gams {
		names[i] = g.name
	}
	th.set("GAMs", tomlStrings(names), "")
	b.im.maps(d.node.Pos, d.path, d.class, "→ [[Threads]] %s at %s Hz running %s%s", d.name, tomlFloat(b.im.frequency(t)), strings.Join(names, ", "), p.restNote("not RealTimeThread parameters"))
	b.im.approx(d.node.Pos, d.path, d.class, "MARTe2's GAMScheduler runs RT threads SCHED_FIFO (RealTimePriorityClass); the import leaves Priority = 0: add Priority = 1..99 to the thread (needs CAP_SYS_NICE) for the same")
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

// timerParams maps the LinuxTimer's parameters onto the thread.
func (im *importer) timerParams(t *threadState, th *table) {
	ds := t.timer
	p := newParam(im, ds.node, ds.path, "Class", "Signals")
	nature, _ := p.str("SleepNature")
	pct, hasPct := p.uint("SleepPercentage", 100)
	switch {
	case nature == "Busy" && hasPct && pct > 0:
		th.set("SleepNature", tomlString("Hybrid"), "MARTe2 Busy with SleepPercentage")
		th.set("SleepPercentage", tomlInt(int64(pct)), "")
	case nature == "Busy":
		th.set("SleepNature", tomlString("Busy"), "")
	default:
		if nature != "" && nature != "Default" {
			im.approx(ds.node.Leaf("SleepNature").Value.Pos, ds.path+".SleepNature", "", "%q is not Default or Busy; the thread sleeps (Default)", nature)
		}
		th.set("SleepNature", tomlString("Default"), "")
	}
	f := im.frequency(t)
	period := time.Duration(math.Round(1e9 / f))
	text := fmt.Sprintf("paces thread %s at %s Hz (period %v); Counter and Time come from streamerd's Timer", t.def.name, tomlFloat(f), period)
	if mode, _ := p.str("ExecutionMode"); mode != "RealTimeThread" {
		im.approx(ds.node.Pos, ds.path, ds.class, "ExecutionMode IndependentThread: MARTe2 wakes the RT thread from a timer thread; streamerd's RT thread sleeps to its own deadlines (as RealTimeThread mode), with the same Counter and Time")
	}
	for _, k := range []string{"CPUMask", "Phase", "+TimeProvider", "StackSize"} {
		if l := p.leaf(k); l != nil {
			im.approx(l.Pos, ds.path+"."+k, "", "ignored: streamerd's thread paces itself on CLOCK_MONOTONIC")
		}
	}
	if us := 1e6 / f; us != math.Trunc(us) {
		im.approx(t.freqPos, t.timerGAM.path+".Frequency", "", "MARTe2's Time is Counter × %d µs (the period truncated to whole µs); streamerd's is Counter × %v: Time, and waveforms evaluated at it, drift apart by %.3g µs per cycle", uint32(us), period, us-math.Trunc(us))
	}
	im.maps(ds.node.Pos, ds.path, ds.class, "%s%s", text, p.restNote("not LinuxTimer parameters"))
}
