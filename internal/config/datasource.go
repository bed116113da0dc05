package config

import (
	"fmt"
	"strings"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/quant"
)

// dataSourceKeys are the keys every [[DataSources]] table has; each class
// adds its producer's.
var dataSourceKeys = table[DataSource]{
	name: "DataSources",
	keys: []key[DataSource]{
		field("Name", str(), func(d *DataSource) *string { return &d.Name }).
			Required("a string").NotEmpty().Printable().
			Check(func(d *DataSource) string {
				if strings.Contains(d.Name, ".") {
					return message("must not contain '.' (signals are addressed as \"DataSource.Signal\", e.g. by /force), got %q", d.Name)
				}
				return ""
			}).
			Doc("non-empty, unique among datasources, no `.` (signals are addressed as `DataSource.Signal`, e.g. by `/force`)"),
		field("Class", oneOf(ClassUDPStreamer, ClassRD100S, ClassFlatUDP, ClassReplay), func(d *DataSource) *string { return &d.Class }).
			Required("a string"),
		custom("Signals", "array of tables", readSignals).
			Default("required").
			Doc("`[[DataSources.Signals]]`, at least one, in wire order; none for a `Replay`, which serves the signals of its recording"),
	},
}

// class is a datasource class: it decodes the keys of its producer into
// the producer's Config and returns what the producer's Validate reports.
type class struct {
	decode func(t *tbl, ds *DataSource) error
	doc    section // its keys, for the docs and -describe
}

// classes are the datasource classes.
var classes = map[string]class{
	ClassUDPStreamer: {udpStreamer, &udpStreamerKeys},
	ClassRD100S:      {rd100S, &rd100sKeys},
	ClassFlatUDP:     {flatUDP, &flatUDPKeys},
	ClassReplay:      {replayDS, &replayKeys},
}

// dataSource decodes datasource i: its name, class and signals, then the
// class's keys, and positions the producer's own errors at their keys,
// leaving out those on a key the decoder already reported.
func (d *decoder) dataSource(i int, t *tbl) DataSource {
	ds := dataSourceKeys.decode(t)
	if c, ok := classes[ds.Class]; ok {
		err := c.decode(t, &ds)
		d.errs = append(d.errs, d.f.configErrors(i, err, d.bad, nil)...)
		t.done()
	}
	for j := range ds.Signals {
		s := &ds.Signals[j]
		if s.NumberOfElements == 0 {
			s.NumberOfElements = s.Elements() // 1 for a scalar, Rows × Cols for a matrix
		}
	}
	return ds
}

// readSignals decodes the [[DataSources.Signals]] of ds: the keys of every
// class, then those of a UDPStreamer signal, refused on other classes. A
// Replay has none: its recording's are read with its keys.
func readSignals(t *tbl, ds *DataSource) {
	if ds.Class == ClassReplay {
		if _, ok := t.get("Signals"); ok {
			t.errf("Signals", "a Replay serves the signals of its recording (File); give no [[DataSources.Signals]]")
		}
		return
	}
	if !t.has("Signals") {
		t.missing("Signals", "[[DataSources.Signals]] tables")
	}
	for _, st := range t.tables("Signals") {
		s := signalKeys.decode(st)
		if ds.Class == ClassUDPStreamer {
			udpsSignalKeys.read(st, &s)
		} else {
			udpsSignalKeys.forbid(st, "applies only to UDPStreamer signals")
		}
		st.done()
		ds.Signals = append(ds.Signals, s)
	}
}

// signalKeys are the keys of a [[DataSources.Signals]] table of every
// class. Their ranges are the producers' rules (datasource.ValidateSignals).
var signalKeys = table[datasource.Signal]{
	name:     "DataSources.Signals",
	defaults: func(s *datasource.Signal) { s.NumberOfElements = 1 },
	keys: []key[datasource.Signal]{
		field("Name", str(), func(s *datasource.Signal) *string { return &s.Name }).
			Required("a string").Printable().
			Doc("non-empty, unique in the datasource (it may contain `.`: `/force?signal=DS.a.b` is signal `a.b`)"),
		field("Type", parsed("uint8, int8, uint16, int16, uint32, int32, uint64, int64, float32, float64", datasource.ParseType), func(s *datasource.Signal) *datasource.Type { return &s.Type }).
			Required("a type name such as \"float32\"").
			Doc("`uint8`, `int8`, `uint16`, `int16`, `uint32`, `int32`, `uint64`, `int64`, `float32`, `float64`, or `char8` (text, FlatUDP only: see [flatudp.md](flatudp.md#text-char8))"),
		field("NumberOfDimensions", anyInt(), func(s *datasource.Signal) *int { return &s.NumberOfDimensions }).
			Doc("0 scalar, 1 array, 2 matrix"),
		field("NumberOfElements", anyInt(), func(s *datasource.Signal) *int { return &s.NumberOfElements }).
			Default("`1` (matrix: Rows×Cols)").
			Doc("scalar: 1; array: 1..16777216; matrix: equal to Rows×Cols"),
		field("Rows", anyInt(), func(s *datasource.Signal) *int { return &s.Rows }).
			Only(isMatrix, "applies only to NumberOfDimensions = 2").Default("—").
			Doc("required with `NumberOfDimensions = 2` (≥ 1, Rows×Cols ≤ 16777216); an error otherwise. Elements are row-major."),
		field("Cols", anyInt(), func(s *datasource.Signal) *int { return &s.Cols }).
			Only(isMatrix, "applies only to NumberOfDimensions = 2").Default("—").
			Doc("as `Rows`"),
		field("Unit", str(), func(s *datasource.Signal) *string { return &s.Unit }).
			Printable().
			Doc("informational; no control or format characters (as names)"),
	},
	finish: func(t *tbl, s *datasource.Signal) {
		if s.NumberOfDimensions != 2 {
			return
		}
		if !t.has("NumberOfElements") || t.failed("NumberOfElements") {
			s.NumberOfElements = 0 // Rows × Cols
		}
		for _, side := range []struct {
			key string
			v   *int
		}{{"Rows", &s.Rows}, {"Cols", &s.Cols}} {
			switch {
			case !t.has(side.key):
				t.missing(side.key, "an integer ≥ 1 for a matrix")
				*side.v = 1 // reported: the producer need not say it again
			case t.failed(side.key):
				*side.v = 1
			}
		}
	},
}

func isMatrix(s *datasource.Signal) bool { return s.NumberOfDimensions == 2 }

// udpsSignalKeys are the keys a UDPStreamer signal adds.
var udpsSignalKeys = table[datasource.Signal]{
	name:     "DataSources.Signals.UDPStreamer",
	defaults: func(s *datasource.Signal) { s.RangeMax = 1 },
	keys: []key[datasource.Signal]{
		field("RangeMin", number(), func(s *datasource.Signal) *float64 { return &s.RangeMin }).
			Doc("finite"),
		field("RangeMax", number(), func(s *datasource.Signal) *float64 { return &s.RangeMax }).
			Doc("finite; with a quantisation `RangeMin < RangeMax`"),
		field("QuantizedType", parsed("none, uint8, int8, uint16, int16", parseWireType), func(s *datasource.Signal) *quant.WireType { return &s.QuantizedType }).
			Doc("`none`, `uint8`, `int8`, `uint16`, `int16`; anything but `none` needs a float32 or float64 signal"),
		field("TimeMode", parsed("PacketTime, FullArray, FirstSample, LastSample", parseTimeMode), func(s *datasource.Signal) *datasource.TimeMode { return &s.TimeMode }).
			Doc("`PacketTime`, `FullArray`, `FirstSample`, `LastSample`"),
		field("TimeSignal", str(), func(s *datasource.Signal) *string { return &s.TimeSignal }).
			Doc("required unless `PacketTime` (and an error with it): another signal of the datasource. `FullArray`: same element count. `FirstSample`/`LastSample`: a scalar."),
		field("SamplingRate", number(), func(s *datasource.Signal) *float64 { return &s.SamplingRate }).
			Unit("Hz").Doc("≥ 0; > 0 required with `FirstSample` and `LastSample`"),
	},
}

// parseTimeMode parses a MARTe2 time-mode name, as datasource.TimeMode
// spells it.
func parseTimeMode(s string) (datasource.TimeMode, error) {
	for m := datasource.PacketTime; m <= datasource.LastSample; m++ {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown time mode %q", s)
}

// parseWireType reads a quantised type by the name quant.WireType's String
// gives it.
func parseWireType(s string) (quant.WireType, error) {
	for w := quant.None; w.Valid(); w++ {
		if w.String() == s {
			return w, nil
		}
	}
	return quant.None, fmt.Errorf("unknown quantised type %q", s)
}
