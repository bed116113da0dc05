package config

import (
	"math"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/streamerd/streamerd/datasource"
	enc "github.com/streamerd/streamerd/datasource/rd100s"
	"github.com/streamerd/streamerd/quant"
)

// Limits of the configuration.
const (
	MaxNameLen      = 63    // bytes of a UDPStreamer signal name (NUL-terminated 64-byte field)
	MaxUnitLen      = 31    // bytes of a UDPStreamer unit (NUL-terminated 32-byte field)
	MaxUDPPayload   = 65507 // IPv4 UDP payload limit
	udpsHeaderSize  = 17    // UDPStreamer datagram header
	udpsMaxFrags    = 65535 // totalFragments is a uint16
	flatMaxElements = 4096  // FlatUDP element count per signal
	minPeriod       = time.Microsecond
	maxPeriod       = time.Hour
	defaultGCLimit  = 1 << 30 // MemoryLimit filled in when GCPolicy is "off"
	defaultStack    = 1 << 20
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
	a.ScopeAddress = t.str("ScopeAddress", "")
	t.hostPort("ScopeAddress", a.ScopeAddress, "127.0.0.1:8090", "the scope")
	a.LogLevel = t.enum("LogLevel", "info", "debug", "info", "warn", "error")
	a.LogFormat = t.enum("LogFormat", "text", "text", "json")
	a.LockMemory = t.boolean("LockMemory", false)
	a.GCPolicy = t.enum("GCPolicy", "default", "default", "off")
	a.MemoryLimit = t.integer("MemoryLimit", 0, 0, math.MaxInt64)
	if a.GCPolicy == "off" && a.MemoryLimit == 0 {
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
	g.Class = t.reqStr("Class")
	switch g.Class {
	case ClassTimer, ClassWaveform, ClassIOGAM, "":
	default:
		if t.isString("Class") {
			t.errf("Class", "expected one of \"Timer\", \"Waveform\", \"IOGAM\", got %q", g.Class)
		}
	}
	if g.Class == ClassWaveform {
		g.Waveform = waveform(t)
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

func (d *decoder) dataSource(i int, t *tbl) DataSource {
	ds := DataSource{Name: t.reqStr("Name"), Class: t.reqStr("Class")}
	udps := ds.Class == ClassUDPStreamer
	var sigTables []*tbl
	if !t.has("Signals") {
		t.get("Signals")
		t.missing("Signals", "[[DataSources.Signals]] tables")
	} else {
		sigTables = t.tables("Signals")
	}
	for _, s := range sigTables {
		ds.Signals = append(ds.Signals, signal(s, udps))
	}
	sigsOK := true
	if err := datasource.ValidateSignals(ds.Name, ds.Signals); err != nil {
		if t.has("Signals") {
			d.errs = append(d.errs, d.f.configErrors(i, err, nil)...)
		}
		sigsOK = false
	}
	for j := range ds.Signals {
		s := &ds.Signals[j]
		switch s.NumberOfDimensions {
		case 0:
			s.NumberOfElements = 1
		case 2:
			if s.NumberOfElements == 0 {
				s.NumberOfElements = s.Rows * s.Cols
			}
		}
	}
	switch ds.Class {
	case ClassUDPStreamer:
		ds.UDPStreamer = udpStreamer(t, ds.Signals, sigsOK)
	case ClassRD100S:
		ds.RD100S = rd100s(t, ds.Signals)
	case ClassFlatUDP:
		ds.FlatUDP = flatUDP(t, ds.Signals, sigsOK)
	case "":
	default:
		if t.isString("Class") {
			t.errf("Class", "expected one of \"UDPStreamer\", \"RD100S\", \"FlatUDP\", got %q", ds.Class)
		}
	}
	if ds.Class == ClassUDPStreamer || ds.Class == ClassRD100S || ds.Class == ClassFlatUDP {
		t.done()
	}
	return ds
}

var udpsOnly = []string{"RangeMin", "RangeMax", "QuantizedType", "TimeMode", "TimeSignal", "SamplingRate"}

func signal(t *tbl, udps bool) datasource.Signal {
	s := datasource.Signal{Name: t.reqStr("Name")}
	if t.has("Type") {
		ts := t.str("Type", "")
		if t.isString("Type") {
			typ, err := datasource.ParseType(ts)
			if err != nil {
				t.errf("Type", "expected one of uint8, int8, uint16, int16, uint32, int32, uint64, int64, float32, float64, got %q", ts)
			}
			s.Type = typ
		}
	} else {
		t.get("Type")
		t.missing("Type", "a type name such as \"float32\"")
	}
	s.NumberOfDimensions = int(t.integer("NumberOfDimensions", 0, 0, 2))
	def := int64(1)
	if s.NumberOfDimensions == 2 {
		def = 0
	}
	s.NumberOfElements = int(t.integer("NumberOfElements", def, 0, datasource.MaxElements))
	for _, k := range []string{"Rows", "Cols"} {
		present := t.has(k)
		v := int(t.integer(k, 0, 1, datasource.MaxElements))
		switch {
		case present && s.NumberOfDimensions != 2:
			t.errf(k, "applies only to NumberOfDimensions = 2")
		case !present && s.NumberOfDimensions == 2:
			t.missing(k, "an integer ≥ 1 for a matrix")
			v = 1
		case present && v == 0:
			v = 1 // range error already reported
		}
		if k == "Rows" {
			s.Rows = v
		} else {
			s.Cols = v
		}
	}
	s.Unit = t.str("Unit", "")
	if !udps {
		for _, k := range udpsOnly {
			t.forbid(k, "applies only to UDPStreamer signals")
		}
		t.done()
		return s
	}
	s.RangeMin = t.float("RangeMin", 0)
	s.RangeMax = t.float("RangeMax", 1)
	if t.has("QuantizedType") {
		qs := t.str("QuantizedType", "none")
		if t.isString("QuantizedType") {
			q, err := quant.ParseWireType(qs)
			if err != nil {
				t.errf("QuantizedType", "expected one of none, uint8, int8, uint16, int16, got %q", qs)
			}
			s.QuantizedType = q
		}
	} else {
		t.get("QuantizedType")
	}
	if t.has("TimeMode") {
		ms := t.str("TimeMode", "PacketTime")
		if t.isString("TimeMode") {
			m, err := datasource.ParseTimeMode(ms)
			if err != nil {
				t.errf("TimeMode", "expected one of PacketTime, FullArray, FirstSample, LastSample, got %q", ms)
			}
			s.TimeMode = m
		}
	} else {
		t.get("TimeMode")
	}
	s.TimeSignal = t.str("TimeSignal", "")
	s.SamplingRate = t.float("SamplingRate", 0)
	if s.SamplingRate < 0 {
		t.errf("SamplingRate", "must be ≥ 0 Hz, got %g", s.SamplingRate)
	}
	t.done()
	return s
}

// sigPath returns the canonical path of signal table i of datasource t.
func sigPath(t *tbl, i int) string { return t.at("Signals") + "[" + strconv.Itoa(i) + "]" }

func udpStreamer(t *tbl, sigs []datasource.Signal, sigsOK bool) *UDPStreamerParams {
	p := &UDPStreamerParams{}
	p.Port = uint16(t.integer("Port", 44500, 1, 65535))
	p.MaxPayloadSize = int(t.integer("MaxPayloadSize", 1400, udpsHeaderSize+1, MaxUDPPayload))
	p.Address = ipAddr(t, "Address")
	for i, s := range t.strings("AllowedClients") {
		pfx, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				t.d.errf(t.at("AllowedClients")+"["+strconv.Itoa(i)+"]", "expected a CIDR prefix such as \"127.0.0.0/8\" or an address, got %q", s)
				continue
			}
			pfx = netip.PrefixFrom(a, a.BitLen())
		}
		p.AllowedClients = append(p.AllowedClients, pfx.Masked())
	}
	p.CPUMask = t.cpuMask("CPUMask")
	p.Priority = int(t.integer("Priority", 0, 0, 99))
	p.StackSize = int(t.integer("StackSize", defaultStack, 0, math.MaxInt32))

	f := t.d.f
	add := func(i int, key, format string, args ...any) {
		t.d.errs = append(t.d.errs, f.errKey(sigPath(t, i), key, sprintf(format, args...)))
	}
	for i := range sigs {
		s := &sigs[i]
		if len(s.Name) > MaxNameLen {
			add(i, "Name", "longer than %d bytes (%d)", MaxNameLen, len(s.Name))
		}
		if len(s.Unit) > MaxUnitLen {
			add(i, "Unit", "longer than %d bytes (%d)", MaxUnitLen, len(s.Unit))
		}
		if s.QuantizedType != quant.None {
			if !s.Type.IsFloat() {
				add(i, "QuantizedType", "quantisation needs a float32 or float64 signal, got %v", s.Type)
			} else if !(s.RangeMin < s.RangeMax) {
				add(i, "RangeMax", "quantisation needs RangeMin < RangeMax, got %g and %g", s.RangeMin, s.RangeMax)
			}
		}
		switch s.TimeMode {
		case datasource.PacketTime:
			if s.TimeSignal != "" {
				add(i, "TimeSignal", "needs a TimeMode other than PacketTime")
			}
		default:
			if s.TimeSignal == "" {
				add(i, "TimeSignal", "required with TimeMode = %v", s.TimeMode)
				break
			}
			j := datasource.Index(sigs, s.TimeSignal)
			switch {
			case j < 0:
				add(i, "TimeSignal", "no signal named %q in this datasource", s.TimeSignal)
			case j == i:
				add(i, "TimeSignal", "a signal cannot be its own time signal")
			case s.TimeMode == datasource.FullArray:
				if sigsOK && sigs[j].Elements() != s.Elements() {
					add(i, "TimeSignal", "FullArray needs a time signal with the same element count: %q has %d, this signal %d", s.TimeSignal, sigs[j].Elements(), s.Elements())
				}
			default:
				if sigs[j].NumberOfDimensions != 0 {
					add(i, "TimeSignal", "%v needs a scalar time signal, %q is an array", s.TimeMode, s.TimeSignal)
				}
				if !(s.SamplingRate > 0) {
					add(i, "SamplingRate", "%v needs SamplingRate > 0 Hz", s.TimeMode)
				}
			}
		}
	}
	if sigsOK && p.MaxPayloadSize > udpsHeaderSize {
		payload := 8 // HRT timestamp
		for i := range sigs {
			w := sigs[i].Type.Size()
			if q := sigs[i].QuantizedType.Size(); q > 0 {
				w = q
			}
			payload += w * sigs[i].Elements()
		}
		chunk := p.MaxPayloadSize - udpsHeaderSize
		if frags := (payload + chunk - 1) / chunk; frags > udpsMaxFrags {
			t.errf("MaxPayloadSize", "a %d-byte update needs %d fragments of %d bytes; at most %d are possible", payload, frags, chunk, udpsMaxFrags)
		}
	}
	return p
}

func ipAddr(t *tbl, key string) netip.Addr {
	s := t.str(key, "")
	if s == "" {
		return netip.Addr{}
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		t.errf(key, "expected an IP address such as \"127.0.0.1\", got %q", s)
		return netip.Addr{}
	}
	return a
}

func rd100s(t *tbl, sigs []datasource.Signal) *RD100SParams {
	p := &RD100SParams{}
	if !t.has("dest_host") {
		t.get("dest_host")
		t.missing("dest_host", "a host name or IP address")
	} else {
		p.DestHost = t.reqStr("dest_host")
		if strings.ContainsAny(p.DestHost, " \t/") {
			t.errf("dest_host", "expected a host name or IP address, got %q", p.DestHost)
		}
	}
	p.DestPort = uint16(t.integer("dest_port", 5100, 1, 65535))
	p.SrcPort = uint16(t.integer("src_port", 0, 0, 65535))
	p.RateHz = t.float("rate_hz", 100)
	if !(p.RateHz > 0) || p.RateHz > enc.MaxRateHz {
		t.errf("rate_hz", "must be > 0 and ≤ %g Hz, got %g", enc.MaxRateHz, p.RateHz)
	}
	p.FirstSeq = uint32(t.integer("first_seq", 0, 0, math.MaxUint32))
	mapped := func(key string, required bool) string {
		if required && !t.has(key) {
			t.get(key)
			t.missing(key, "the name of a scalar signal of this datasource")
			return ""
		}
		name := t.str(key, "")
		if name == "" {
			return ""
		}
		j := datasource.Index(sigs, name)
		switch {
		case j < 0:
			t.errf(key, "no signal named %q in this datasource", name)
		case sigs[j].NumberOfDimensions != 0 || sigs[j].NumberOfElements > 1:
			t.errf(key, "signal %q must be a scalar", name)
		case key == "status_signal" && sigs[j].Type != datasource.Uint16:
			t.errf(key, "signal %q must be uint16, got %v", name, sigs[j].Type)
		}
		return name
	}
	p.AzimuthSignal = mapped("azimuth_signal", true)
	p.AzimuthUnit = t.enum("azimuth_unit", "deg", "deg", "mdeg")
	p.ElevationSignal = mapped("elevation_signal", true)
	p.ElevationUnit = t.enum("elevation_unit", "deg", "deg", "mdeg")
	p.AzRateSignal = mapped("az_rate_signal", false)
	p.ElRateSignal = mapped("el_rate_signal", false)
	p.RateUnit = t.enum("rate_unit", "deg/s", "deg/s", "mdeg/s")
	p.StatusSignal = mapped("status_signal", false)
	if p.StatusSignal != "" {
		for _, k := range []string{"az_valid", "el_valid", "az_ref_ok", "el_ref_ok", "az_fault", "el_fault"} {
			if t.has(k) {
				t.errf(k, "conflicts with status_signal, which drives the status bits")
			}
		}
	}
	p.AzValid = t.boolean("az_valid", true)
	p.ElValid = t.boolean("el_valid", true)
	p.AzRefOK = t.boolean("az_ref_ok", true)
	p.ElRefOK = t.boolean("el_ref_ok", true)
	p.AzFault = t.boolean("az_fault", false)
	p.ElFault = t.boolean("el_fault", false)
	p.CPUMask = t.cpuMask("CPUMask")
	p.Seed = uint64(t.integer("seed", 1, 0, math.MaxInt64))
	if g := t.sub("degradations"); g != nil {
		dg := &p.Degradations
		dg.LossProbability = g.floatIn("loss_probability", 0, 0, 1)
		dg.LossEveryN = int(g.integer("loss_every_n", 0, 0, math.MaxInt32))
		dg.BurstLoss = time.Duration(g.integer("burst_loss_ms", 0, 0, enc.MaxBurstLoss.Milliseconds())) * time.Millisecond
		dg.DuplicateProbability = g.floatIn("duplicate_probability", 0, 0, 1)
		dg.ReorderWindow = time.Duration(g.integer("reorder_window_ms", 0, 0, enc.MaxReorderWindow.Milliseconds())) * time.Millisecond
		dg.Jitter = time.Duration(g.floatIn("jitter_ms", 0, 0, 60000) * float64(time.Millisecond))
		dg.Freeze = g.boolean("freeze", false)
		dg.InvalidAz = g.boolean("invalid_az", false)
		dg.InvalidEl = g.boolean("invalid_el", false)
		dg.SeqJump = g.integer("seq_jump", 0, math.MinInt32, math.MaxInt32)
		dg.Silence = g.boolean("silence", false)
		g.done()
	}
	return p
}

func flatUDP(t *tbl, sigs []datasource.Signal, sigsOK bool) *FlatUDPParams {
	p := &FlatUDPParams{}
	if !t.has("Address") {
		t.get("Address")
		t.missing("Address", "the destination IP address (unicast or multicast group)")
	} else if t.isString("Address") && t.m["Address"] == "" {
		t.get("Address")
		t.errf("Address", "must not be empty (the destination IP address)")
	} else {
		p.Address = ipAddr(t, "Address")
	}
	p.Port = uint16(t.integer("Port", 44488, 1, 65535))
	p.ExecutionMode = t.enum("ExecutionMode", IndependentThread, IndependentThread, RealTimeThread)
	// An unknown mode was reported; check neither mode's rules then.
	modeKnown := !t.has("ExecutionMode") || t.m["ExecutionMode"] == p.ExecutionMode
	indep := p.ExecutionMode == IndependentThread && modeKnown
	onlyIndep := func(key string) {
		if !indep && modeKnown && t.has(key) {
			t.errf(key, "applies only to ExecutionMode = \"IndependentThread\"")
		}
	}
	// Our sender thread exists in both modes (MARTe2 sends from the RT
	// thread in RealTimeThread mode), so CPUMask, StackSize and the ring
	// size apply to both; only the trigger windows are IndependentThread's.
	for _, k := range []string{"NumberOfPreTriggers", "NumberOfPostTriggers"} {
		onlyIndep(k)
	}
	p.NumberOfPreTriggers = int(t.integer("NumberOfPreTriggers", 0, 0, 1<<20))
	p.NumberOfPostTriggers = int(t.integer("NumberOfPostTriggers", 0, 0, 1<<20))
	defaultBuffers := int64(10)
	if !indep {
		defaultBuffers = 64 // the queue between the RT thread and the sender
	}
	p.NumberOfBuffers = int(t.integer("NumberOfBuffers", defaultBuffers, 1, 1<<20))
	if p.NumberOfPreTriggers >= p.NumberOfBuffers {
		t.errf("NumberOfPreTriggers", "must be less than NumberOfBuffers (%d), got %d", p.NumberOfBuffers, p.NumberOfPreTriggers)
	}
	p.BigEndian = t.enum("ByteOrder", "little", "little", "big") == "big"
	multicast := p.Address.IsMulticast()
	for _, k := range []string{"TTL", "Interface", "Loopback"} {
		if t.has(k) && !multicast && p.Address.IsValid() {
			t.errf(k, "applies only to a multicast Address")
		}
	}
	p.TTL = int(t.integer("TTL", 1, 0, 255))
	p.Interface = t.str("Interface", "")
	p.Loopback = t.boolean("Loopback", true)
	p.CPUMask = t.cpuMask("CPUMask")
	p.StackSize = int(t.integer("StackSize", defaultStack, 0, math.MaxInt32))

	f := t.d.f
	if !sigsOK {
		return p
	}
	total := 0
	for i := range sigs {
		n := sigs[i].Elements()
		if n < 1 || n > flatMaxElements {
			t.d.errs = append(t.d.errs, f.errKey(sigPath(t, i), "NumberOfElements", sprintf("must be 1..%d for FlatUDP, got %d", flatMaxElements, n)))
		}
		total += sigs[i].ByteSize()
	}
	if total > MaxUDPPayload {
		t.errf("Signals", "a datagram of %d bytes exceeds the UDP limit of %d bytes", total, MaxUDPPayload)
	}
	if indep && len(sigs) > 0 {
		if s := sigs[0]; s.Name != "Trigger" || s.Type != datasource.Uint8 || s.Elements() != 1 {
			t.d.errs = append(t.d.errs, f.errKey(sigPath(t, 0), "Name", sprintf("in IndependentThread mode the first signal must be the scalar uint8 \"Trigger\", got %q %v[%d]", s.Name, s.Type, s.Elements())))
		}
	}
	return p
}
