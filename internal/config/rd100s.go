package config

import (
	"fmt"
	"math"
	"strconv"

	"github.com/streamerd/streamerd/datasource/rd100s"
	"github.com/streamerd/streamerd/datasource/rd100s/wire"
	"github.com/streamerd/streamerd/rt/cpu"
)

// rd100S decodes the keys of an RD100S datasource (the spec's section 8)
// into its Config and returns what rd100s.Validate reports.
func rd100S(t *tbl, ds *DataSource) error {
	c := &rd100s.Config{Name: ds.Name, Signals: ds.Signals}
	rd100sKeys.read(t, c)
	ds.RD100S = c
	return rd100s.Validate(c)
}

type rdConfig = rd100s.Config

// statusBit declares the key of a status constant, bit of Config.Status,
// which status_signal replaces.
func statusBit(name string, bit wire.Status, doc string) key[rdConfig] {
	typ := boolean()
	k := key[rdConfig]{name: name, kind: typ.kind, allowed: typ.allowed}
	k.read = func(t *tbl, c *rdConfig) {
		v, ok := t.get(name)
		if !ok {
			return
		}
		if on, ok := typ.read(at{t, name}, v); ok {
			c.Status &^= bit
			if on {
				c.Status |= bit
			}
		}
	}
	k.show = func(c *rdConfig) string { return typ.format(c.Status&bit != 0) }
	k.isSet = func(c *rdConfig) bool { return c.Status&bit != 0 }
	return k.Doc(doc).
		Only(func(c *rdConfig) bool { return c.StatusSignal == "" }, "conflicts with status_signal, which drives the status bits")
}

// unit declares a unit key of a mapped signal: degrees or millidegrees,
// per second for a rate (suffix "/s").
func unit(name string, ptr func(*rdConfig) *string, suffix string) key[rdConfig] {
	return field(name, oneOf("deg"+suffix, "mdeg"+suffix), ptr).Default("`\"deg" + suffix + "\"`")
}

// rd100sKeys are the keys of an RD100S datasource; their rules are the
// producer's (rd100s.Validate), their defaults rd100s.DefaultConfig.
var rd100sKeys = table[rdConfig]{
	name: ClassRD100S,
	defaults: func(c *rdConfig) {
		d := rd100s.DefaultConfig()
		d.Name, d.Signals = c.Name, c.Signals
		d.Seed = 1
		*c = d
	},
	keys: []key[rdConfig]{
		field("dest_host", str(), func(c *rdConfig) *string { return &c.DestHost }).
			Default("required").
			Doc("host name or IPv4 address of the receiver, resolved once at start"),
		field("dest_port", port(), func(c *rdConfig) *int { return &c.DestPort }),
		field("src_port", anyInt(), func(c *rdConfig) *int { return &c.SrcPort }).
			Doc("0..65535; 0 = ephemeral"),
		field("rate_hz", number(), func(c *rdConfig) *float64 { return &c.RateHz }).
			Unit("Hz").NonZero().
			Doc(fmt.Sprintf("≥ 1/3600 (one packet an hour) and ≤ %g", rdMaxRateHz)),
		field("first_seq", integer[uint32](0, math.MaxUint32), func(c *rdConfig) *uint32 { return &c.FirstSeq }).
			Doc("`seq` of the first packet"),
		field("azimuth_signal", str(), func(c *rdConfig) *string { return &c.AzimuthSignal }).
			Default("required").
			Doc("scalar signal of this datasource giving azimuth; reduced to 0..359999 mdeg, so a sweep crosses the wrap"),
		unit("azimuth_unit", func(c *rdConfig) *string { return &c.AzimuthUnit }, ""),
		field("elevation_signal", str(), func(c *rdConfig) *string { return &c.ElevationSignal }).
			Default("required").
			Doc("scalar signal giving elevation"),
		unit("elevation_unit", func(c *rdConfig) *string { return &c.ElevationUnit }, ""),
		field("az_rate_signal", str(), func(c *rdConfig) *string { return &c.AzRateSignal }).
			Doc("scalar signal giving the azimuth rate; `\"\"` sends 0"),
		field("el_rate_signal", str(), func(c *rdConfig) *string { return &c.ElRateSignal }).
			Doc("scalar signal giving the elevation rate; `\"\"` sends 0"),
		unit("rate_unit", func(c *rdConfig) *string { return &c.RateUnit }, "/s"),
		field("status_signal", str(), func(c *rdConfig) *string { return &c.StatusSignal }).
			Doc("scalar **integer** signal (uint16 typically) whose bits 0-5 give AZ_VALID, EL_VALID, AZ_REF_OK, EL_REF_OK, AZ_FAULT, EL_FAULT; its other bits are ignored. When set, the six constants below are an error."),
		statusBit("az_valid", wire.AzValid, "status bit 0 (AZ_VALID) when there is no `status_signal`"),
		statusBit("el_valid", wire.ElValid, "status bit 1 (EL_VALID)"),
		statusBit("az_ref_ok", wire.AzRefOK, "status bit 2 (AZ_REF_OK)"),
		statusBit("el_ref_ok", wire.ElRefOK, "status bit 3 (EL_REF_OK)"),
		statusBit("az_fault", wire.AzFault, "status bit 4 (AZ_FAULT)"),
		statusBit("el_fault", wire.ElFault, "status bit 5 (EL_FAULT)"),
		field("CPUMask", cpuMask(), func(c *rdConfig) *cpu.Mask { return &c.CPUMask }).
			Doc("emitter thread's CPU mask"),
		field("Priority", anyInt(), func(c *rdConfig) *int { return &c.Priority }).
			Doc("0 (normal scheduling) or 1.." + strconv.Itoa(cpu.MaxPriority) + ": the emitter thread's SCHED_FIFO priority, as for UDPStreamer"),
		field("seed", integer[uint64](0, math.MaxInt64), func(c *rdConfig) *uint64 { return &c.Seed }).
			Doc("seed of the degradations' random draws"),
		custom("degradations", "table", func(t *tbl, c *rdConfig) {
			if g := t.sub("degradations"); g != nil {
				degradationKeys.read(g, &c.Degradations)
				g.done()
			}
		}).Doc("the initial degradations, below"),
	},
}

// degradations are the initial degradations of an RD100S datasource, keys
// and values as rd100s.Encoder.Set takes them (Config.Degradations).
type degradations = map[string]string

// degradation declares the key name of a degradation, of type typ, kept
// as the text its TOML value formats to.
func degradation[T any](name string, typ valueType[T]) key[degradations] {
	k := key[degradations]{name: name, kind: typ.kind, allowed: typ.allowed}
	k.read = func(t *tbl, m *degradations) {
		v, ok := t.get(name)
		if !ok {
			return
		}
		if x, ok := typ.read(at{t, name}, v); ok {
			if *m == nil {
				*m = degradations{}
			}
			(*m)[name] = typ.format(x)
		}
	}
	k.show = func(m *degradations) string {
		if v, ok := (*m)[name]; ok {
			return v
		}
		var zero T
		return typ.format(zero)
	}
	return k
}

// degradationKeys are the keys of [DataSources.degradations]: the initial
// state of the fault injections, all off by default; their rules are the
// producer's.
var degradationKeys = table[degradations]{
	name: "DataSources.degradations",
	keys: []key[degradations]{
		degradation("loss_probability", number()).
			Doc("0..1, each packet dropped with this probability"),
		degradation("loss_every_n", anyInt()).
			Doc("≥ 0; drop one packet in N (0 = off)"),
		degradation("burst_loss_ms", millis()).
			Unit("ms").
			Doc(fmt.Sprintf("0..%d; one outage of this length, starting when set; it ends by itself", rdMaxBurstLoss.Milliseconds())),
		degradation("duplicate_probability", number()).
			Doc("0..1"),
		degradation("reorder_window_ms", millis()).
			Unit("ms").
			Doc(fmt.Sprintf("0..%d; each packet delayed by a random 0..window, so later ones overtake it", rdMaxReorderWindow.Milliseconds())),
		degradation("jitter_ms", millisFloat()).
			Unit("ms").
			Doc("0 up to half the period (5 ms at 100 Hz, so packets never swap); maximum deviation of each send instant from the nominal grid"),
		degradation("freeze", boolean()).
			Doc("position frozen while `seq` advances"),
		degradation("invalid_az", boolean()).
			Doc("AZ_VALID forced to 0"),
		degradation("invalid_el", boolean()).
			Doc("EL_VALID forced to 0"),
		degradation("seq_jump", integer[int32](math.MinInt32, math.MaxInt32)).
			Doc("delta added to `seq` once, at the next packet"),
		degradation("silence", boolean()).
			Doc("nothing is sent"),
	},
}
