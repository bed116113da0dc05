package config

import (
	"math"
	"strconv"
	"time"

	"github.com/streamerd/streamerd/rt/cpu"
)

// Limits of a thread's period.
const (
	minPeriod = time.Microsecond
	maxPeriod = time.Hour
)

// threadKeys are the keys of a [[Threads]] table.
var threadKeys = table[Thread]{
	name:     "Threads",
	defaults: func(t *Thread) { t.SleepPercentage = 90 },
	keys: []key[Thread]{
		field("Name", str(), func(t *Thread) *string { return &t.Name }).
			Required("a string").NotEmpty().Printable().
			Doc("non-empty, unique among threads"),
		field("Frequency", number(), func(t *Thread) *float64 { return &t.Frequency }).
			Unit("Hz").Default("—").
			Doc("> 0. Exactly one of `Frequency` and `Period` is required."),
		field("Period", duration("1ms", "250us"), func(t *Thread) *time.Duration { return &t.Period }).
			Default("—").
			Doc("Go duration: `\"1ms\"`, `\"250us\"`, `\"100µs\"`. The period must be 1 µs .. 1 h (either way it is given)."),
		field("CPUMask", cpuMask(), func(t *Thread) *cpu.Mask { return &t.CPUMask }).
			Doc("CPU bit mask: `\"0x2\"`, `\"0b10\"`, `\"2\"` or `2` all mean CPU 1. 0 = no pinning."),
		field("Priority", integer[int](0, cpu.MaxPriority), func(t *Thread) *int { return &t.Priority }).
			Doc("0 = normal scheduling; 1.." + strconv.Itoa(cpu.MaxPriority) + " = `SCHED_FIFO` at that priority (needs `CAP_SYS_NICE`)"),
		field("SleepNature", named(SleepDefault, SleepBusy, SleepHybrid), func(t *Thread) *SleepNature { return &t.SleepNature }).
			Doc("`Default`: sleep on the timer until the next period. `Busy`: spin on the clock for the whole period (lowest jitter, one CPU at 100 %). `Hybrid`: sleep `SleepPercentage` % of the period, then spin."),
		field("SleepPercentage", integer[int](0, 100), func(t *Thread) *int { return &t.SleepPercentage }).
			Only(func(t *Thread) bool { return t.SleepNature == SleepHybrid }, "applies only to SleepNature = \"Hybrid\"").
			Doc("only with `SleepNature = \"Hybrid\"` (an error otherwise)"),
		field("LateThreshold", duration("500us", "2ms"), func(t *Thread) *time.Duration { return &t.LateThreshold }).
			Default("half the period").NonZero().
			Check(func(t *Thread) string {
				if t.LateThreshold < 0 {
					return "must be a positive duration"
				}
				return ""
			}).
			Doc("Go duration > 0: a cycle that wakes later than this after its deadline is a late cycle: counted by cause in `streamerd_rt_late_cycles_total`, shown in `/status` and logged at most once a second (docs/timings.md, *Late cycles*). Cycles that overrun their period are late whatever this says."),
		field("GAMs", strs(), func(t *Thread) *[]string { return &t.GAMs }).
			Required("an array of GAM names, in execution order").
			Check(func(t *Thread) string {
				if len(t.GAMs) == 0 {
					return "at least one GAM is required"
				}
				return ""
			}).
			Doc("at least one; names of `[[GAMs]]`, run in this order. Each GAM runs in exactly one thread and appears once."),
	},
	finish: period,
}

// period checks that exactly one of Frequency and Period is given, in
// range, and sets the other from it.
func period(t *tbl, th *Thread) {
	if th.SleepNature != SleepHybrid {
		th.SleepPercentage = 0
	}
	hasF, hasP := t.has("Frequency"), t.has("Period")
	switch {
	case hasF && hasP:
		t.errf("Period", "give Frequency or Period, not both")
	case !hasF && !hasP:
		t.missing("Frequency", "a frequency in Hz, or Period = \"1ms\"")
	case hasF && !t.failed("Frequency"):
		if th.Frequency <= 0 {
			t.errf("Frequency", "must be > 0 Hz, got %g", th.Frequency)
			break
		}
		th.Period = time.Duration(math.Round(1e9 / th.Frequency))
		if th.Period < minPeriod || th.Period > maxPeriod {
			t.errf("Frequency", "period must be %v..%v, got %g Hz", minPeriod, maxPeriod, th.Frequency)
		}
	case hasP && !t.failed("Period"):
		if th.Period < minPeriod || th.Period > maxPeriod {
			t.errf("Period", "must be %v..%v, got %v", minPeriod, maxPeriod, th.Period)
			th.Period = 0
			break
		}
		th.Frequency = 1e9 / float64(th.Period)
	}
}
