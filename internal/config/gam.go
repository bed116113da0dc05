package config

import (
	"errors"
	"strings"

	"github.com/streamerd/streamerd/internal/gam"
)

// gamKeys are the keys every [[GAMs]] table has; each class adds its own.
var gamKeys = table[GAM]{
	name: "GAMs",
	keys: []key[GAM]{
		field("Name", str(), func(g *GAM) *string { return &g.Name }).
			Required("a string").NotEmpty().Printable().
			Check(func(g *GAM) string {
				if strings.ContainsAny(g.Name, ". ") {
					return message("must not contain '.' or spaces (inputs are written \"GAM.Signal\"), got %q", g.Name)
				}
				return ""
			}).
			Doc("non-empty, unique among GAMs, no `.` or spaces (inputs are written `GAM.Signal`)"),
		field("Class", oneOf(ClassTimer, ClassWaveform, ClassIOGAM, ClassText), func(g *GAM) *string { return &g.Class }).
			Required("a string"),
		custom("Outputs", "array of tables", readOutputs).
			Required("[[GAMs.Outputs]] tables").
			Doc("`[[GAMs.Outputs]]`, see below"),
	},
	defaults: func(g *GAM) { g.Thread = -1 },
}

// gamClasses are the keys each GAM class adds.
var gamClasses = map[string]func(t *tbl, g *GAM){
	ClassWaveform: waveform,
	ClassText: func(t *tbl, g *GAM) {
		textKeys.read(t, g)
		gamErrors(t, gam.CheckText(g.Name, g.Text), nil)
	},
	ClassIOGAM: iogamKeys.read,
}

func (d *decoder) gam(t *tbl) GAM {
	g := gamKeys.decode(t)
	if class := gamClasses[g.Class]; class != nil {
		class(t, &g)
	}
	if g.Class == ClassIOGAM {
		iogamOutputs(t, &g)
	}
	t.done()
	return g
}

// waveform decodes the keys of Waveform GAM g and checks them by the GAM's
// own rules (gam.WaveformConfig.CheckParameters).
func waveform(t *tbl, g *GAM) {
	w := waveformKeys.decode(t)
	g.Waveform = &w
	shape, _ := gam.ParseShape(w.Shape) // a bad name is reported, and the default kept
	cfg := gam.WaveformConfig{Shape: shape, Amplitude: w.Amplitude, Frequency: w.Frequency, Offset: w.Offset, Phase: w.Phase,
		DutyCycle: w.DutyCycle, Seed: w.Seed, SamplingRate: w.SamplingRate, TimeInput: w.TimeInput != ""}
	gamErrors(t, cfg.CheckParameters(g.Name), map[string]string{"Shape": "Waveform"})
}

// gamErrors reports the *gam.ConfigError values in err at the keys they
// name (key renames a parameter the file spells otherwise), leaving out a
// key already reported.
func gamErrors(t *tbl, err error, key map[string]string) {
	if err == nil {
		return
	}
	if u, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range u.Unwrap() {
			gamErrors(t, e, key)
		}
		return
	}
	var ce *gam.ConfigError
	if !errors.As(err, &ce) {
		t.errf("", "%v", err)
		return
	}
	k := ce.Parameter
	if r, ok := key[k]; ok {
		k = r
	}
	if !t.failed(k) {
		t.errf(k, "%s", ce.Rule)
	}
}

// readOutputs decodes the [[GAMs.Outputs]] of g.
func readOutputs(t *tbl, g *GAM) {
	for _, ot := range t.tables("Outputs") {
		if !ot.has("Signal") && g.Class != ClassIOGAM {
			ot.missing("Signal", "a string")
		}
		o := outputKeys.decode(ot)
		if g.Class == ClassTimer && o.Signal != "" && o.Signal != TimerCounter && o.Signal != TimerTime {
			ot.errf("Signal", "a Timer has outputs \"Counter\" and \"Time\", got %q", o.Signal)
		}
		ot.done()
		g.Outputs = append(g.Outputs, o)
	}
}

// iogamOutputs names each output of IOGAM g that has no Signal after its
// input, and checks there is one output per input.
func iogamOutputs(t *tbl, g *GAM) {
	for i := range g.Outputs {
		o := &g.Outputs[i]
		ot := t.elem("Outputs", i)
		switch {
		case ot.has("Signal"):
		case i < len(g.Inputs) && g.Inputs[i].Signal != "":
			o.Signal = g.Inputs[i].Signal
			if !ot.has("Alias") {
				o.Alias = o.Signal
			}
		default:
			ot.missing("Signal", "a string")
		}
	}
	if t.has("Inputs") && len(g.Outputs) != len(g.Inputs) {
		t.errf("Outputs", "an IOGAM needs one output per input: %d inputs, %d outputs", len(g.Inputs), len(g.Outputs))
	}
}

// outputKeys are the keys of a [[GAMs.Outputs]] table.
var outputKeys = table[Output]{
	name:     "GAMs.Outputs",
	defaults: func(o *Output) { o.DataSourceIndex, o.SignalIndex = -1, -1 },
	keys: []key[Output]{
		field("Signal", str(), func(o *Output) *string { return &o.Signal }).
			NotEmpty().Printable().
			Default("required (IOGAM: the input's signal name)").
			Doc("the GAM's output name. Timer: `Counter` or `Time`. Waveform and Text: any name (commonly `Out`); every output of a Waveform GAM carries the same waveform, every output of a Text GAM the same text."),
		field("DataSource", str(), func(o *Output) *string { return &o.DataSource }).
			Required("a string").NotEmpty().
			Doc("name of a `[[DataSources]]`"),
		field("Alias", str(), func(o *Output) *string { return &o.Alias }).
			NotEmpty().Printable().
			Default("`Signal`").
			Doc("name of the datasource signal written"),
	},
	finish: func(t *tbl, o *Output) {
		if !t.has("Alias") {
			o.Alias = o.Signal
		}
	},
}

// waveShapes returns the names of the shapes of a Waveform GAM.
func waveShapes() []string {
	var names []string
	for s := gam.Shape(0); s.Valid(); s++ {
		names = append(names, s.String())
	}
	return names
}

// waveformKeys are the keys of a Waveform GAM.
var waveformKeys = table[Waveform]{
	name: "Waveform",
	defaults: func(w *Waveform) {
		*w = Waveform{Shape: "sine", Amplitude: 1, Frequency: 1, DutyCycle: gam.DefaultDutyCycle, Seed: 1}
	},
	keys: []key[Waveform]{
		field("Waveform", oneOf(waveShapes()...), func(w *Waveform) *string { return &w.Shape }).
			Doc("one of the shapes below"),
		field("Amplitude", number(), func(w *Waveform) *float64 { return &w.Amplitude }).
			Doc("signal units"),
		field("Frequency", number(), func(w *Waveform) *float64 { return &w.Frequency }).
			Unit("Hz").Doc("frequency of the waveform, ≥ 0"),
		field("Offset", number(), func(w *Waveform) *float64 { return &w.Offset }).
			Doc("signal units, added to every shape"),
		field("Phase", number(), func(w *Waveform) *float64 { return &w.Phase }).
			Doc("**radians** (as MARTe2's WaveformSin); shifts the periodic shapes by Phase/2π of a period"),
		field("DutyCycle", number(), func(w *Waveform) *float64 { return &w.DutyCycle }).
			Only(func(w *Waveform) bool { return w.Shape == "square" }, "applies only to Waveform = \"square\"").
			Doc("0..1, fraction of the period at the high level; only with `Waveform = \"square\"`"),
		field("Seed", integer[uint64](0, 1<<63-1), func(w *Waveform) *uint64 { return &w.Seed }).
			Only(func(w *Waveform) bool { return w.Shape == "noise" }, "applies only to Waveform = \"noise\"").
			Doc("seed of the generator; only with `Waveform = \"noise\"`"),
		field("SamplingRate", number(), func(w *Waveform) *float64 { return &w.SamplingRate }).
			Unit("Hz").
			Doc("≥ 0. For an array output, element k is the waveform at t + k/SamplingRate. 0 = one sample per cycle, all elements equal."),
		field("TimeInput", oneOf("Time"), func(w *Waveform) *string { return &w.TimeInput }).
			Doc("`\"Time\"`: MARTe2's WaveformGAM time base, below (`\"\"`: the count of executed cycles). Then `SamplingRate` must be 0."),
	},
}

// textKeys is the key of a Text GAM.
var textKeys = table[GAM]{
	name: "Text",
	keys: []key[GAM]{
		field("Text", str(), func(g *GAM) *string { return &g.Text }).
			Required("a string").NotEmpty().
			Doc("non-empty, no NUL byte, at most N−1 bytes (UTF-8) for a `char8[N]` signal: a NUL always ends the text, as MARTe2's ConstantGAM leaves it"),
	},
}

// iogamKeys is the key of an IOGAM.
var iogamKeys = table[GAM]{
	name: "IOGAM",
	keys: []key[GAM]{
		field("Inputs", list(readInput, func(in Input) string { return in.GAM + "." + in.Signal }), func(g *GAM) *[]Input { return &g.Inputs }).
			Required("an array of \"GAM.Signal\" names").
			Doc("`\"GAM.Signal\"`: an output of a GAM that runs earlier in the same thread"),
	},
}

// readInput reads element i of an IOGAM's Inputs, "GAM.Signal"; a bad one
// is reported and kept, unresolved, so the outputs keep their places.
func readInput(r at, i int, s string) (Input, bool) {
	gn, sn, ok := strings.Cut(s, ".")
	if !ok || gn == "" || sn == "" {
		r.elemErrf(i, "expected \"GAM.Signal\", got %q", s)
	}
	return Input{GAM: gn, Signal: sn, GAMIndex: -1, OutputIndex: -1}, true
}
