package config

import (
	"math"
	"time"

	"github.com/streamerd/streamerd/datasource/rd100s"
)

// rd100S decodes the keys of an RD100S datasource (the spec's section 8)
// into its Config and returns what rd100s.Validate reports.
func rd100S(t *tbl, ds *DataSource) error {
	c := rd100s.DefaultConfig()
	c.Name, c.Signals = ds.Name, ds.Signals
	c.DestHost = t.str("dest_host", "")
	c.DestPort = int(t.integer("dest_port", rd100s.DefaultDestPort, 1, 65535))
	c.SrcPort = t.int("src_port", 0)
	c.RateHz = t.nonZeroFloat("rate_hz", c.RateHz)
	c.FirstSeq = uint32(t.integer("first_seq", 0, 0, math.MaxUint32))
	c.AzimuthSignal = t.str("azimuth_signal", "")
	c.AzimuthUnit = unit(t, "azimuth_unit", "deg", "mdeg")
	c.ElevationSignal = t.str("elevation_signal", "")
	c.ElevationUnit = unit(t, "elevation_unit", "deg", "mdeg")
	c.AzRateSignal = t.str("az_rate_signal", "")
	c.ElRateSignal = t.str("el_rate_signal", "")
	c.RateUnit = unit(t, "rate_unit", "deg/s", "mdeg/s")
	c.StatusSignal = t.str("status_signal", "")
	bits := []*bool{&c.AzValid, &c.ElValid, &c.AzRefOK, &c.ElRefOK, &c.AzFault, &c.ElFault}
	for i, k := range []string{"az_valid", "el_valid", "az_ref_ok", "el_ref_ok", "az_fault", "el_fault"} {
		if c.StatusSignal != "" && t.has(k) {
			t.errf(k, "conflicts with status_signal, which drives the status bits")
		}
		*bits[i] = t.boolean(k, *bits[i])
	}
	c.CPUMask = t.cpuMask("CPUMask")
	c.Priority = t.int("Priority", 0)
	c.Seed = uint64(t.integer("seed", 1, 0, math.MaxInt64))
	if g := t.sub("degradations"); g != nil {
		degradations(g, &c.Degradations)
	}
	ds.RD100S = &c
	return rd100s.Validate(&c)
}

// unit reads a unit key spelt one of two ways: degrees or millidegrees
// (per second for a rate).
func unit(t *tbl, key, deg, mdeg string) rd100s.Unit {
	if t.enum(key, deg, deg, mdeg) == mdeg {
		return rd100s.Millidegrees
	}
	return rd100s.Degrees
}

// degradations reads the initial degradation state; durations are in
// milliseconds.
func degradations(t *tbl, g *rd100s.Degradations) {
	ms := func(key string) time.Duration {
		return time.Duration(t.integer(key, 0, math.MinInt32, math.MaxInt32)) * time.Millisecond
	}
	g.LossProbability = t.float("loss_probability", 0)
	g.LossEveryN = t.int("loss_every_n", 0)
	g.BurstLoss = ms("burst_loss_ms")
	g.DuplicateProbability = t.float("duplicate_probability", 0)
	g.ReorderWindow = ms("reorder_window_ms")
	g.Jitter = time.Duration(t.floatIn("jitter_ms", 0, -1e9, 1e9) * float64(time.Millisecond))
	g.Freeze = t.boolean("freeze", false)
	g.InvalidAz = t.boolean("invalid_az", false)
	g.InvalidEl = t.boolean("invalid_el", false)
	g.SeqJump = int32(t.integer("seq_jump", 0, math.MinInt32, math.MaxInt32))
	g.Silence = t.boolean("silence", false)
	t.done()
}
