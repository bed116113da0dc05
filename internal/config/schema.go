package config

import (
	"math"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/httpguard"
	"github.com/streamerd/streamerd/quant"
)

// Limits of the configuration.
const (
	minPeriod      = time.Microsecond
	maxPeriod      = time.Hour
	defaultGCLimit = 1 << 30 // MemoryLimit filled in when GCPolicy is "off"
)

func (d *decoder) decode(root *tbl) {
	f := d.f
	if app := root.sub("App"); app != nil {
		d.app(app)
	} else {
		d.app(&tbl{d: d, path: "App", m: map[string]any{}})
	}
	for _, t := range root.tables("Threads") {
		f.Threads = append(f.Threads, d.thread(t))
	}
	for _, t := range root.tables("GAMs") {
		f.GAMs = append(f.GAMs, d.gam(t))
	}
	for i, t := range root.tables("DataSources") {
		f.DataSources = append(f.DataSources, d.dataSource(i, t))
	}
	root.done()
}

func (d *decoder) app(t *tbl) {
	a := &d.f.App
	a.HTTPAddress = t.str("HTTPAddress", "127.0.0.1:9100")
	t.hostPort("HTTPAddress", a.HTTPAddress, "127.0.0.1:9100", "HTTP")
	a.HTTPTokenFile = t.str("HTTPTokenFile", "")
	a.HTTPInsecureControl = t.boolean("HTTPInsecureControl", false)
	switch {
	case !a.HTTPInsecureControl:
	case a.HTTPAddress == "":
		t.errf("HTTPInsecureControl", "has no effect with HTTP off (HTTPAddress = \"\")")
	case a.HTTPTokenFile != "":
		t.errf("HTTPInsecureControl", "has no effect with HTTPTokenFile: every request carries the token")
	case LoopbackHost(a.HTTPAddress):
		t.errf("HTTPInsecureControl", "has no effect on a loopback HTTPAddress, where the control endpoints are served without a token")
	}
	a.ScopeAddress = t.str("ScopeAddress", "")
	t.hostPort("ScopeAddress", a.ScopeAddress, "127.0.0.1:8090", "the scope")
	a.HTTPAllowedHosts = t.strings("HTTPAllowedHosts")
	for i, h := range a.HTTPAllowedHosts {
		if err := httpguard.CheckName(h); err != nil {
			t.d.errf(t.at("HTTPAllowedHosts")+"["+strconv.Itoa(i)+"]", "%v", err)
		}
	}
	a.LogLevel = t.enum("LogLevel", "info", "debug", "info", "warn", "error")
	a.LogFormat = t.enum("LogFormat", "text", "text", "json")
	a.LockMemory = t.boolean("LockMemory", false)
	a.GCPolicy = t.enum("GCPolicy", "default", "default", "off")
	a.MemoryLimit = t.integer("MemoryLimit", MemoryLimitAuto, 0, math.MaxInt64)
	if a.GCPolicy == "off" && a.MemoryLimit <= 0 {
		a.MemoryLimit = defaultGCLimit
	}
	a.CPUWakeLatency = int(t.integer("CPUWakeLatency", -1, -1, 2_000_000_000))
	t.done()
}

// hostPort checks the address key: host:port, or "" to disable what it
// serves.
func (t *tbl) hostPort(key, value, example, what string) {
	if value == "" {
		return
	}
	if _, err := netip.ParseAddrPort(value); err == nil {
		return
	}
	if _, port, ok := strings.Cut(value, ":"); !ok || port == "" || strings.Contains(port, ":") {
		t.errf(key, "expected host:port such as %q or \"\" to disable %s, got %q", example, what, value)
	} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		t.errf(key, "port must be 0..65535, got %q", port)
	}
}

func (d *decoder) thread(t *tbl) Thread {
	th := Thread{Name: t.reqStr("Name")}
	t.printable("Name", th.Name)
	hasF, hasP := t.has("Frequency"), t.has("Period")
	th.Frequency = t.float("Frequency", 0)
	ps := t.str("Period", "")
	switch {
	case hasF && hasP:
		t.errf("Period", "give Frequency or Period, not both")
	case !hasF && !hasP:
		t.missing("Frequency", "a frequency in Hz, or Period = \"1ms\"")
	case hasF && t.isNumber("Frequency"):
		if th.Frequency <= 0 {
			t.errf("Frequency", "must be > 0 Hz, got %g", th.Frequency)
			break
		}
		th.Period = time.Duration(math.Round(1e9 / th.Frequency))
		if th.Period < minPeriod || th.Period > maxPeriod {
			t.errf("Frequency", "period must be %v..%v, got %g Hz", minPeriod, maxPeriod, th.Frequency)
		}
	case hasP && t.isString("Period"):
		p, err := time.ParseDuration(ps)
		if err != nil {
			t.errf("Period", "expected a duration such as \"1ms\" or \"250us\", got %q", ps)
			break
		}
		if p < minPeriod || p > maxPeriod {
			t.errf("Period", "must be %v..%v, got %v", minPeriod, maxPeriod, p)
			break
		}
		th.Period = p
		th.Frequency = 1e9 / float64(p)
	}
	th.CPUMask = t.cpuMask("CPUMask")
	th.Priority = int(t.integer("Priority", 0, 0, 99))
	switch t.enum("SleepNature", "Default", sleepNatureNames...) {
	case "Busy":
		th.SleepNature = SleepBusy
	case "Hybrid":
		th.SleepNature = SleepHybrid
	}
	hasSP := t.has("SleepPercentage")
	th.SleepPercentage = int(t.integer("SleepPercentage", 90, 0, 100))
	if hasSP && th.SleepNature != SleepHybrid {
		t.errf("SleepPercentage", "applies only to SleepNature = \"Hybrid\"")
	}
	if th.SleepNature != SleepHybrid {
		th.SleepPercentage = 0
	}
	if !t.has("GAMs") {
		t.get("GAMs")
		t.missing("GAMs", "an array of GAM names, in execution order")
	} else {
		th.GAMs = t.strings("GAMs")
		if a, ok := t.m["GAMs"].([]any); ok && len(a) == 0 {
			t.errf("GAMs", "at least one GAM is required")
		}
	}
	t.done()
	return th
}

var waveShapes = []string{"sine", "square", "triangle", "sawtooth", "ramp", "constant", "noise"}

func (d *decoder) gam(t *tbl) GAM {
	g := GAM{Name: t.reqStr("Name"), Thread: -1}
	if strings.ContainsAny(g.Name, ". ") {
		t.errf("Name", "must not contain '.' or spaces (inputs are written \"GAM.Signal\"), got %q", g.Name)
	}
	t.printable("Name", g.Name)
	g.Class = t.reqStr("Class")
	switch g.Class {
	case ClassTimer, ClassWaveform, ClassIOGAM, ClassText, "":
	default:
		if t.isString("Class") {
			t.errf("Class", "expected one of \"Timer\", \"Waveform\", \"IOGAM\", \"Text\", got %q", g.Class)
		}
	}
	if g.Class == ClassWaveform {
		g.Waveform = waveform(t)
	}
	if g.Class == ClassText {
		g.Text = t.reqStr("Text")
		if strings.IndexByte(g.Text, 0) >= 0 {
			t.errf("Text", "must not contain a NUL byte (receivers end the text at the first NUL)")
		}
	}
	if g.Class == ClassIOGAM {
		if !t.has("Inputs") {
			t.get("Inputs")
			t.missing("Inputs", "an array of \"GAM.Signal\" names")
		}
		for i, s := range t.strings("Inputs") {
			gn, sn, ok := strings.Cut(s, ".")
			if !ok || gn == "" || sn == "" {
				t.d.errf(t.at("Inputs")+"["+strconv.Itoa(i)+"]", "expected \"GAM.Signal\", got %q", s)
			}
			g.Inputs = append(g.Inputs, Input{GAM: gn, Signal: sn, GAMIndex: -1, OutputIndex: -1})
		}
	}
	outs := t.tables("Outputs")
	if !t.has("Outputs") {
		t.missing("Outputs", "[[GAMs.Outputs]] tables")
	}
	for i, o := range outs {
		out := Output{DataSourceIndex: -1, SignalIndex: -1}
		def := ""
		if g.Class == ClassIOGAM && i < len(g.Inputs) {
			def = g.Inputs[i].Signal
		}
		if def != "" {
			out.Signal = o.str("Signal", def)
		} else {
			out.Signal = o.reqStr("Signal")
		}
		if g.Class == ClassTimer && out.Signal != "" && out.Signal != TimerCounter && out.Signal != TimerTime {
			o.errf("Signal", "a Timer has outputs \"Counter\" and \"Time\", got %q", out.Signal)
		}
		out.DataSource = o.reqStr("DataSource")
		out.Alias = o.str("Alias", out.Signal)
		if out.Alias == "" && o.has("Alias") {
			o.errf("Alias", "must not be empty")
		}
		o.printable("Signal", out.Signal)
		o.printable("Alias", out.Alias)
		o.done()
		g.Outputs = append(g.Outputs, out)
	}
	if g.Class == ClassIOGAM && t.has("Inputs") && len(g.Outputs) != len(g.Inputs) {
		t.errf("Outputs", "an IOGAM needs one output per input: %d inputs, %d outputs", len(g.Inputs), len(g.Outputs))
	}
	t.done()
	return g
}

func waveform(t *tbl) *Waveform {
	w := &Waveform{}
	w.Shape = t.enum("Waveform", "sine", waveShapes...)
	w.Amplitude = t.float("Amplitude", 1)
	w.Frequency = t.float("Frequency", 1)
	if w.Frequency < 0 {
		t.errf("Frequency", "must be ≥ 0 Hz, got %g", w.Frequency)
	}
	w.Offset = t.float("Offset", 0)
	w.Phase = t.float("Phase", 0)
	hasDC, hasSeed := t.has("DutyCycle"), t.has("Seed")
	w.DutyCycle = t.floatIn("DutyCycle", 0.5, 0, 1)
	if hasDC && w.Shape != "square" {
		t.errf("DutyCycle", "applies only to Waveform = \"square\"")
	}
	w.Seed = uint64(t.integer("Seed", 1, 0, math.MaxInt64))
	if hasSeed && w.Shape != "noise" {
		t.errf("Seed", "applies only to Waveform = \"noise\"")
	}
	w.SamplingRate = t.float("SamplingRate", 0)
	if w.SamplingRate < 0 {
		t.errf("SamplingRate", "must be ≥ 0 Hz, got %g", w.SamplingRate)
	}
	w.TimeInput = t.enum("TimeInput", "", "Time")
	if w.TimeInput != "" && w.SamplingRate != 0 {
		t.errf("SamplingRate", "must be 0 with TimeInput: the element spacing comes from the time input")
	}
	return w
}

// classes decodes the keys of each datasource class into its producer's
// Config and returns what the producer's Validate reports.
var classes = map[string]func(t *tbl, ds *DataSource) error{
	ClassUDPStreamer: udpStreamer,
	ClassRD100S:      rd100S,
	ClassFlatUDP:     flatUDP,
}

// dataSource decodes datasource i: its name, class and signals, then the
// class's keys, and positions the producer's own errors at their keys,
// leaving out those on a key the decoder already reported.
func (d *decoder) dataSource(i int, t *tbl) DataSource {
	ds := DataSource{Name: t.reqStr("Name"), Class: t.reqStr("Class")}
	if strings.Contains(ds.Name, ".") {
		t.errf("Name", "must not contain '.' (signals are addressed as \"DataSource.Signal\", e.g. by /force), got %q", ds.Name)
	}
	t.printable("Name", ds.Name)
	if !t.has("Signals") {
		t.get("Signals")
		t.missing("Signals", "[[DataSources.Signals]] tables")
	}
	for _, s := range t.tables("Signals") {
		ds.Signals = append(ds.Signals, signal(s, ds.Class == ClassUDPStreamer))
	}
	decode, known := classes[ds.Class]
	switch {
	case known:
		err := decode(t, &ds)
		d.errs = append(d.errs, d.f.configErrors(i, err, d.bad, nil)...)
		t.done()
	case ds.Class != "" && t.isString("Class"):
		t.errf("Class", "expected one of \"UDPStreamer\", \"RD100S\", \"FlatUDP\", got %q", ds.Class)
	}
	for j := range ds.Signals {
		s := &ds.Signals[j]
		if s.NumberOfElements == 0 {
			s.NumberOfElements = s.Elements() // 1 for a scalar, Rows × Cols for a matrix
		}
	}
	return ds
}

var udpsOnly = []string{"RangeMin", "RangeMax", "QuantizedType", "TimeMode", "TimeSignal", "SamplingRate"}

func signal(t *tbl, udps bool) datasource.Signal {
	s := datasource.Signal{Name: t.reqStr("Name")}
	t.printable("Name", s.Name)
	if !t.has("Type") {
		t.get("Type")
		t.missing("Type", "a type name such as \"float32\"")
	}
	s.Type = parseStr(t, "Type", 0, "uint8, int8, uint16, int16, uint32, int32, uint64, int64, float32, float64", datasource.ParseType)
	s.NumberOfDimensions = int(t.integer("NumberOfDimensions", 0, 0, 2))
	def := int64(1)
	if s.NumberOfDimensions == 2 {
		def = 0
	}
	s.NumberOfElements = int(t.integer("NumberOfElements", def, 0, datasource.MaxElements))
	s.Rows, s.Cols = matrixSide(t, "Rows", s.NumberOfDimensions), matrixSide(t, "Cols", s.NumberOfDimensions)
	s.Unit = t.str("Unit", "")
	t.printable("Unit", s.Unit)
	if !udps {
		for _, k := range udpsOnly {
			t.forbid(k, "applies only to UDPStreamer signals")
		}
		t.done()
		return s
	}
	s.RangeMin = t.float("RangeMin", 0)
	s.RangeMax = t.float("RangeMax", 1)
	s.QuantizedType = parseStr(t, "QuantizedType", quant.None, "none, uint8, int8, uint16, int16", quant.ParseWireType)
	s.TimeMode = parseStr(t, "TimeMode", datasource.PacketTime, "PacketTime, FullArray, FirstSample, LastSample", datasource.ParseTimeMode)
	s.TimeSignal = t.str("TimeSignal", "")
	s.SamplingRate = t.float("SamplingRate", 0)
	t.done()
	return s
}

// matrixSide reads Rows or Cols: required for a matrix, an error otherwise;
// 1 when missing or out of range, the error already reported.
func matrixSide(t *tbl, key string, dims int) int {
	present := t.has(key)
	v := int(t.integer(key, 0, 1, datasource.MaxElements))
	switch {
	case present && dims != 2:
		t.errf(key, "applies only to NumberOfDimensions = 2")
	case !present && dims == 2:
		t.missing(key, "an integer ≥ 1 for a matrix")
		v = 1
	case present && v == 0:
		v = 1
	}
	return v
}

// parseStr reads the string key with parse, def when absent; a spelling
// parse refuses is reported with the ones it takes.
func parseStr[T any](t *tbl, key string, def T, spellings string, parse func(string) (T, error)) T {
	s := t.str(key, "")
	if !t.isString(key) {
		return def
	}
	v, err := parse(s)
	if err != nil {
		t.errf(key, "expected one of %s, got %q", spellings, s)
		return def
	}
	return v
}
