package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/configs"
	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp"
	flatwire "github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/datasource/rd100s"
	rdwire "github.com/streamerd/streamerd/datasource/rd100s/wire"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/quant"
	"github.com/streamerd/streamerd/rt"
)

func loadExample(t *testing.T, name string) *File {
	t.Helper()
	f, err := Load(filepath.Join("..", "..", "configs", name))
	if err != nil {
		t.Fatalf("%s:\n%v", name, err)
	}
	return f
}

// TestExamplesLoad parses every configuration of configs/, from the
// directory and from the embedded copy.
func TestExamplesLoad(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "configs", "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 5 {
		t.Fatalf("found %d example configurations, want at least 5", len(paths))
	}
	for _, p := range paths {
		name := filepath.Base(p)
		t.Run(name, func(t *testing.T) {
			f := loadExample(t, name)
			checkResolved(t, f)
			data, err := configs.FS.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Parse(name, data); err != nil {
				t.Fatalf("embedded copy:\n%v", err)
			}
		})
	}
	if _, err := Parse("app.toml", defaultConfig(t)); err != nil {
		t.Fatalf("configs app.toml:\n%v", err)
	}
}

// checkResolved verifies the indexes Parse resolved.
func checkResolved(t *testing.T, f *File) {
	t.Helper()
	for ti, th := range f.Threads {
		if len(th.GAMIndex) != len(th.GAMs) {
			t.Fatalf("thread %s: GAMIndex %v for GAMs %v", th.Name, th.GAMIndex, th.GAMs)
		}
		for k, gi := range th.GAMIndex {
			if f.GAMs[gi].Name != th.GAMs[k] || f.GAMs[gi].Thread != ti {
				t.Errorf("thread %s GAM %d resolved to %d (%s, thread %d)", th.Name, k, gi, f.GAMs[gi].Name, f.GAMs[gi].Thread)
			}
		}
		if th.Period <= 0 || th.Frequency <= 0 {
			t.Errorf("thread %s: period %v frequency %g", th.Name, th.Period, th.Frequency)
		}
	}
	for _, g := range f.GAMs {
		for _, o := range g.Outputs {
			ds := &f.DataSources[o.DataSourceIndex]
			if ds.Name != o.DataSource || ds.Signals[o.SignalIndex].Name != o.Alias {
				t.Errorf("GAM %s output %s resolved to %s.%s", g.Name, o.Alias, ds.Name, ds.Signals[o.SignalIndex].Name)
			}
		}
		for _, in := range g.Inputs {
			if f.GAMs[in.GAMIndex].Name != in.GAM || f.GAMs[in.GAMIndex].Outputs[in.OutputIndex].Signal != in.Signal {
				t.Errorf("GAM %s input %s.%s resolved wrongly", g.Name, in.GAM, in.Signal)
			}
		}
	}
	for _, ds := range f.DataSources {
		n := 0
		for _, p := range []bool{ds.UDPStreamer != nil, ds.RD100S != nil, ds.FlatUDP != nil} {
			if p {
				n++
			}
		}
		if n != 1 {
			t.Errorf("datasource %s: %d class parameter sets", ds.Name, n)
		}
	}
}

func TestExampleApp(t *testing.T) {
	f := loadExample(t, "app.toml")
	if f.App.HTTPAddress != "127.0.0.1:9100" {
		t.Errorf("HTTPAddress %q", f.App.HTTPAddress)
	}
	if len(f.Threads) != 1 || f.Threads[0].Frequency != 1000 || f.Threads[0].Period != time.Millisecond {
		t.Errorf("threads %+v", f.Threads)
	}
	if len(f.DataSources) != 1 || f.DataSources[0].UDPStreamer == nil {
		t.Fatalf("datasources %+v", f.DataSources)
	}
	ds := f.DataSources[0]
	if ds.UDPStreamer.Port != 44500 {
		t.Errorf("Port %d", ds.UDPStreamer.Port)
	}
	types := map[datasource.Type]bool{}
	quants := map[quant.WireType]bool{}
	var firstSample, matrix bool
	for _, s := range ds.Signals {
		types[s.Type] = true
		quants[s.QuantizedType] = true
		if s.TimeMode == datasource.FirstSample && s.Elements() > 1 && s.SamplingRate > 0 {
			firstSample = true
		}
		if s.NumberOfDimensions == 2 && s.Rows > 1 && s.Cols > 1 && s.NumberOfElements == s.Rows*s.Cols {
			matrix = true
		}
	}
	if len(types) != 10 {
		t.Errorf("app.toml has %d of the 10 signal types", len(types))
	}
	if len(quants) != 5 {
		t.Errorf("app.toml has %d of the 5 quantisations", len(quants))
	}
	if !firstSample || !matrix {
		t.Errorf("FirstSample array %v, 2-D signal %v", firstSample, matrix)
	}
}

func TestExampleBurst(t *testing.T) {
	f := loadExample(t, "burst.toml")
	sigs := f.DataSources[0].Signals
	if len(sigs) != 2 || sigs[0].Name != "T0" || sigs[0].Type != datasource.Uint32 {
		t.Fatalf("signals %+v", sigs)
	}
	ch := sigs[1]
	if ch.Name != "Ch1" || ch.Type != datasource.Float32 || ch.Elements() != 1000 || ch.TimeMode != datasource.FirstSample || ch.TimeSignal != "T0" || ch.SamplingRate != 1e6 {
		t.Errorf("Ch1 %+v", ch)
	}
	if f.Threads[0].Frequency != 1000 {
		t.Errorf("frequency %g", f.Threads[0].Frequency)
	}
}

func TestExampleRD100S(t *testing.T) {
	f := loadExample(t, "rd100s.toml")
	p := f.DataSources[0].RD100S
	if p == nil || p.DestHost != "127.0.0.1" || p.DestPort != 5100 || p.RateHz != 100 {
		t.Fatalf("RD100S %+v", p)
	}
	if p.AzimuthSignal == "" || p.ElevationSignal == "" || p.AzRateSignal == "" || p.ElRateSignal == "" || p.StatusSignal == "" {
		t.Errorf("unmapped channels: %+v", p)
	}
	az := f.GAMs[f.GAM("Azimuth")].Waveform
	if az.Shape != "ramp" || az.Offset >= 360 || az.Offset+az.Amplitude*az.Frequency*2 < 360 {
		t.Errorf("azimuth %+v does not cross the 360 deg wrap within 2 s", az)
	}
}

func TestExampleFlatUDP(t *testing.T) {
	f := loadExample(t, "flatudp.toml")
	ds := f.DataSources[0]
	p := ds.FlatUDP
	if p == nil || p.Address != "127.0.0.1" || p.Port != 44488 || p.ExecutionMode != "RealTimeThread" {
		t.Fatalf("FlatUDP %+v", p)
	}
	size, arrays := 0, 0
	types := map[datasource.Type]bool{}
	for _, s := range ds.Signals {
		size += s.ByteSize()
		types[s.Type] = true
		if s.Elements() > 1 {
			arrays++
		}
	}
	if size != 28 || arrays != 1 || len(types) < 3 {
		t.Errorf("%d bytes, %d arrays, %d types", size, arrays, len(types))
	}
	if f.Threads[0].Frequency != 1000 {
		t.Errorf("frequency %g", f.Threads[0].Frequency)
	}

	f = loadExample(t, "flatudp_trigger.toml")
	ds = f.DataSources[0]
	if ds.FlatUDP.ExecutionMode != "IndependentThread" || ds.Signals[0].Name != "Trigger" || ds.Signals[0].Type != datasource.Uint8 {
		t.Errorf("trigger example: %+v %+v", ds.FlatUDP, ds.Signals[0])
	}
	if ds.FlatUDP.CPUMask != 1 || ds.FlatUDP.NumberOfPreTriggers != 2 || ds.FlatUDP.NumberOfPostTriggers != 3 {
		t.Errorf("trigger example: %+v", ds.FlatUDP)
	}
}

func TestDefaults(t *testing.T) {
	src := baseUDPS + `
[[DataSources]]
Name = "F"
Class = "FlatUDP"
Address = "239.1.2.3"
  [[DataSources.Signals]]
  Name = "Trigger"
  Type = "uint8"

[[DataSources]]
Name = "E"
Class = "RD100S"
dest_host = "controller"
azimuth_signal = "Az"
elevation_signal = "El"
  [[DataSources.Signals]]
  Name = "Az"
  Type = "float64"
  [[DataSources.Signals]]
  Name = "El"
  Type = "float64"
  NumberOfElements = 1
`
	src = strings.Replace(src, "[App]\nHTTPAddress = \"127.0.0.1:0\"\n", "[App]\nGCPolicy = \"off\"\n", 1)
	src = strings.Replace(src, "Frequency = 1000.0", "Period = \"250us\"\nSleepNature = \"Hybrid\"\nCPUMask = 6", 1)
	f, err := Parse("d.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	a := f.App
	if a.HTTPAddress != "127.0.0.1:9100" || a.LogLevel != "info" || a.LogFormat != "text" || a.LockMemory || a.GCPolicy != "off" || a.MemoryLimit != 1<<30 {
		t.Errorf("App %+v", a)
	}
	th := f.Threads[0]
	if th.Period != 250*time.Microsecond || th.Frequency != 4000 || th.SleepNature != SleepHybrid || th.SleepPercentage != 90 || th.CPUMask != 6 || th.Priority != 0 {
		t.Errorf("thread %+v", th)
	}
	w := f.GAMs[1].Waveform
	if *w != (Waveform{Shape: "sine", Amplitude: 1, Frequency: 1, DutyCycle: 0.5, Seed: 1}) {
		t.Errorf("waveform %+v", *w)
	}
	// A zero field left in a producer's Config is its default.
	u := f.DataSources[0].UDPStreamer
	if u.Port != 44500 || u.MaxPayloadSize != 0 || u.Address != "" || u.AllowedClients != nil || u.CPUMask != 0 || u.StackSize != 0 {
		t.Errorf("UDPStreamer %+v", u)
	}
	s := f.DataSources[0].Signals[1]
	if s.NumberOfDimensions != 0 || s.NumberOfElements != 1 || s.RangeMin != 0 || s.RangeMax != 1 || s.QuantizedType != quant.None || s.TimeMode != datasource.PacketTime {
		t.Errorf("signal %+v", s)
	}
	fl := f.DataSources[1].FlatUDP
	if fl.Port != 44488 || fl.ExecutionMode != "" || fl.NumberOfBuffers != 0 || fl.ByteOrder != flatwire.Little || fl.TTL != 1 || !fl.Loopback || fl.StackSize != 0 {
		t.Errorf("FlatUDP %+v", fl)
	}
	rd := *f.DataSources[2].RD100S
	want := rd100s.Config{Name: "E", DestHost: "controller", DestPort: 5100, RateHz: 100, AzimuthSignal: "Az", ElevationSignal: "El",
		Status: rdwire.AzValid | rdwire.ElValid | rdwire.AzRefOK | rdwire.ElRefOK, Seed: 1, Signals: f.DataSources[2].Signals}
	if !reflect.DeepEqual(rd, want) {
		t.Errorf("RD100S\n%+v\nwant\n%+v", rd, want)
	}
}

// TestAllErrorsAtOnce: three independent mistakes give three lines, in
// file order.
func TestAllErrorsAtOnce(t *testing.T) {
	src := edit(t, baseUDPS,
		`Type = "float32"`, `Type = "float33"`,
		"Frequency = 1000.0", "Frequency = 1000.0\nPriority = -1",
		`HTTPAddress = "127.0.0.1:0"`, `LogFormat = "xml"`,
	)
	_, err := Parse("three.toml", []byte(src))
	want := `three.toml:2:1: App: LogFormat: expected one of "text", "json", got "xml"
three.toml:7:1: Threads[0] "RT1": Priority: must be 0..99, got -1
three.toml:34:3: DataSources[0] "S" Signals[1] "Ch1": Type: expected one of uint8, int8, uint16, int16, uint32, int32, uint64, int64, float32, float64, got "float33"`
	if err == nil || err.Error() != want {
		t.Fatalf("got\n%v\nwant\n%s", err, want)
	}
	var es Errors
	if !errors.As(err, &es) || len(es) != 3 || es[1].Line != 7 || es[1].Key != "Priority" {
		t.Errorf("Errors %#v", es)
	}
}

func TestPositionAndErrorf(t *testing.T) {
	src := edit(t, baseUDPS, `Type = "float32"`, "Type = \"float32\"\n  QuantizedType = \"none\"")
	f, err := Parse("p.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path      string
		line, col int
	}{
		{"DataSources[0].Signals[1].QuantizedType", 34, 3},
		{"DataSources[0].Signals[1].SamplingRate", 31, 3}, // absent: its table
		{"DataSources[0].Signals[1]", 31, 3},
		{"DataSources[0].Name", 26, 1},
		{"DataSources[0]", 25, 1},
		{"Threads[0].GAMs[1]", 7, 18},
		{"App", 1, 1},
		{"Nothing.Here", 1, 1},
	} {
		if l, col := f.Position(c.path); l != c.line || col != c.col {
			t.Errorf("Position(%q) = %d:%d, want %d:%d", c.path, l, col, c.line, c.col)
		}
	}
	got := f.Errorf("DataSources[0].Signals[1].QuantizedType", "needs %s", "care").Error()
	if want := `p.toml:34:3: DataSources[0] "S" Signals[1] "Ch1": QuantizedType: needs care`; got != want {
		t.Errorf("Errorf: %s\nwant     %s", got, want)
	}
	got = f.Errorf("Threads[0]", "too fast").Error()
	if want := `p.toml:4:1: Threads[0] "RT1": too fast`; got != want {
		t.Errorf("Errorf: %s\nwant     %s", got, want)
	}
}

func TestPositionInlineTables(t *testing.T) {
	src := strings.Replace(baseUDPS, `  [[DataSources.Signals]]
  Name = "T0"
  Type = "uint32"
  [[DataSources.Signals]]
  Name = "Ch1"
  Type = "float32"
`, `Signals = [
  { Name = "T0", Type = "uint32" },
  { Name = "Ch1", Type = "float32", QuantizedType = "int8", RangeMin = 1.0, RangeMax = -1.0 },
]
`, 1)
	_, err := Parse("i.toml", []byte(src))
	want := `i.toml:30:77: DataSources[0] "S" Signals[1] "Ch1": RangeMax: quantisation needs a finite RangeMax > RangeMin, got RangeMin 1 and RangeMax -1`
	if err == nil || err.Error() != want {
		t.Fatalf("got\n%v\nwant\n%s", err, want)
	}
}

func TestWrapConfigErrors(t *testing.T) {
	f, err := Parse("w.toml", []byte(baseUDPS))
	if err != nil {
		t.Fatal(err)
	}
	if f.WrapConfigErrors(0, nil) != nil {
		t.Error("nil error wrapped to non-nil")
	}
	sigs := f.DataSources[0].Signals
	perr := errors.Join(
		&datasource.ConfigError{DataSource: "S", Signal: sigs[1].Name, Index: 1, Parameter: "QuantizedType", Rule: "not supported here"},
		&datasource.ConfigError{DataSource: "S", Index: -1, Parameter: "Port", Rule: "port in use"},
		&datasource.ConfigError{DataSource: "S", Signal: sigs[0].Name, Index: 0, Parameter: "Rows/Cols", Rule: "bad shape"},
		errors.New("something else"),
	)
	got := f.WrapConfigErrors(0, perr)
	want := `w.toml:25:1: DataSources[0] "S": Port: port in use
w.toml:25:1: DataSources[0] "S": something else
w.toml:28:3: DataSources[0] "S" Signals[0] "T0": Rows/Cols: bad shape
w.toml:31:3: DataSources[0] "S" Signals[1] "Ch1": QuantizedType: not supported here`
	if got == nil || got.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", got, want)
	}
	// A wrapped single ConfigError.
	got = f.WrapConfigErrors(0, fmtWrap(&datasource.ConfigError{DataSource: "S", Index: -1, Parameter: "MaxPayloadSize", Rule: "too small"}))
	if want := `w.toml:25:1: DataSources[0] "S": MaxPayloadSize: too small`; got == nil || got.Error() != want {
		t.Errorf("got %v\nwant %s", got, want)
	}
}

type wrapped struct{ err error }

func (w wrapped) Error() string { return "wrapped: " + w.err.Error() }
func (w wrapped) Unwrap() error { return w.err }

func fmtWrap(err error) error { return wrapped{err} }

func TestColumnCountsCharacters(t *testing.T) {
	src := edit(t, baseUDPS, `Name = "RT1"`, `Name = "RT1" # ünïcödé`, "Frequency = 1000.0", `Frequency = 1000.0 ; Priority = 1`)
	_, err := Parse("c.toml", []byte(src))
	if err == nil {
		t.Fatal("no error")
	}
	src = edit(t, baseUDPS, `GAMs = ["Timer", "Sine"]`, `GAMs = ["Tïmer", "Sine"]`)
	_, err = Parse("c.toml", []byte(src))
	if err == nil || !strings.HasPrefix(err.Error(), "c.toml:7:9: ") {
		t.Errorf("got %v", err)
	}
	src = edit(t, baseUDPS, `GAMs = ["Timer", "Sine"]`, `GAMs = ["Tïmer", "Sïne"]`)
	_, err = Parse("c.toml", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "c.toml:7:18: ") {
		t.Errorf("got %v", err)
	}
}

// maxFuzzInput bounds what FuzzParse parses: a parse costs about 0.3 ms
// per KB with the fuzzer's instrumentation, and the minimiser runs each
// input that finds new coverage O(n²) times (make fuzz turns it off), so
// small inputs, and seeds stripped of their comments, keep the fuzzer
// fuzzing. Larger inputs add nothing the small ones do not cover.
const maxFuzzInput = 2 << 10

func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "configs", "*.toml"))
	for _, p := range paths {
		data, err := configs.FS.ReadFile(filepath.Base(p))
		if err == nil {
			f.Add(stripComments(data))
		}
	}
	f.Add([]byte(baseUDPS))
	f.Add([]byte(baseFlat))
	f.Add([]byte(baseRD))
	f.Add([]byte("Signals = [1, [2, {a = 3}]]\n[[DataSources]]\nSignals = [{Name = 1}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		cf, err := Parse("fuzz.toml", data)
		if err != nil {
			if cf != nil {
				t.Fatal("non-nil *File with an error")
			}
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error %T %v is not a non-empty Errors", err, err)
			}
			for _, e := range es {
				if e.Line < 1 || e.Col < 1 {
					t.Fatalf("bad position in %v", e)
				}
			}
			return
		}
		checkResolved(t, cf)
	})
}

// stripComments drops the comment lines, the end-of-line comments and the
// blank lines of a configuration (the examples have no '#' in strings).
func stripComments(data []byte) []byte {
	var out []byte
	for _, line := range strings.Split(string(data), "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if line = strings.TrimRight(line, " \t"); line != "" {
			out = append(out, line+"\n"...)
		}
	}
	return out
}

func TestWarnings(t *testing.T) {
	src := edit(t, baseUDPS, "Frequency = 1000.0", "Frequency = 1000.0\nPriority = 80\nSleepNature = \"Busy\"",
		`GAMs = ["Timer", "Sine"]`, "GAMs = [\"Timer\"]\n\n[[Threads]]\nName = \"RT2\"\nFrequency = 10.0\nPriority = 80\nSleepNature = \"Hybrid\"\nSleepPercentage = 5\nGAMs = [\"Sine\"]",
		`Alias = "Ch1"`, "Alias = \"Ch1\"\n\n[[DataSources]]\nName = \"S2\"\nClass = \"UDPStreamer\"\nPort = 44501\n  [[DataSources.Signals]]\n  Name = \"Ch1\"\n  Type = \"float32\"",
		`  DataSource = "S"`+"\n  Alias = \"Ch1\"", `  DataSource = "S2"`+"\n  Alias = \"Ch1\"",
	)
	f, err := Parse("w.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := Errors(f.Warnings).Error()
	// The scheduling warnings are rt.Validate's (their text depends on the
	// kernel's RT throttling), at the key of the thread's sleep.
	rtWarnings := func(at string, cfg rt.Config) string {
		ws, err := rt.Validate(cfg)
		if err != nil || len(ws) != 2 { // spinning too long, and without CPUMask
			t.Fatalf("rt.Validate: %q, %v", ws, err)
		}
		var b strings.Builder
		for _, w := range ws {
			b.WriteString(at + strings.TrimPrefix(w, cfg.Name+": ") + "\n")
		}
		return b.String()
	}
	want := rtWarnings(`w.toml:8:1: Threads[0] "RT1": SleepNature: `, rt.Config{Name: "RT1", Frequency: 1000, Priority: 80, SleepNature: rt.Busy}) +
		`w.toml:11:1: Threads[1] "RT2": CPUMask: this thread and thread "RT1" both spin under SCHED_FIFO and may share a CPU: they can starve each other; pin them to disjoint CPUs
` + rtWarnings(`w.toml:16:1: Threads[1] "RT2": SleepPercentage: `, rt.Config{Name: "RT2", Frequency: 10, Priority: 80, SleepNature: rt.Hybrid, SleepPercentage: 5}) +
		`w.toml:35:1: DataSources[0] "S2": AllowedClients: any host that can reach the port can start a stream, and a spoofed CONNECT directs it at a third party; list the allowed clients
w.toml:43:1: DataSources[1] "S": AllowedClients: any host that can reach the port can start a stream, and a spoofed CONNECT directs it at a third party; list the allowed clients`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s\n%s", got, want, src)
	}
	for _, name := range []string{"app.toml", "burst.toml", "rd100s.toml", "flatudp.toml", "flatudp_trigger.toml"} {
		if f := loadExample(t, name); len(f.Warnings) > 0 {
			t.Errorf("%s: %v", name, Errors(f.Warnings))
		}
	}
}

// A short period with Default sleep gets rt.Validate's warning, at the key
// that gives the period.
func TestShortPeriodWarning(t *testing.T) {
	for _, c := range []struct{ from, to, key string }{
		{"Frequency = 1000.0", "Frequency = 20000.0", "Frequency"},
		{"Frequency = 1000.0", `Period = "50us"`, "Period"},
	} {
		f, err := Parse("w.toml", []byte(edit(t, baseUDPS, c.from, c.to)))
		if err != nil {
			t.Fatal(err)
		}
		ws, _ := rt.Validate(rt.Config{Name: "RT1", Period: 50 * time.Microsecond})
		want := `w.toml:6:1: Threads[0] "RT1": ` + c.key + ": " + strings.TrimPrefix(ws[0], "RT1: ")
		var got []string
		for _, w := range f.Warnings {
			if strings.Contains(w.Error(), "Threads[") {
				got = append(got, w.Error())
			}
		}
		if strings.Join(got, "\n") != want {
			t.Errorf("%s:\n%s\nwant\n%s", c.to, got, want)
		}
	}
}

// TestSettings: the keys of a datasource's class with the values its
// producer gets, the defaults marked, in declaration order.
func TestSettings(t *testing.T) {
	f, err := Parse("s.toml", []byte(edit(t, baseFlat, `Class = "FlatUDP"`, "Class = \"FlatUDP\"\nNetworkSpin = \"20us\"\nCPUMask = \"0x2\"")))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Setting{}
	var order []string
	for _, s := range f.Settings(0) {
		got[s.Key] = s
		order = append(order, s.Key)
	}
	for _, want := range []Setting{
		{"Address", `"127.0.0.1"`, false},
		{"Port", "44488", true},
		{"ExecutionMode", `"RealTimeThread"`, false},
		{"NetworkSpin", `"20µs"`, false},
		{"CPUMask", "2", false},
		{"StackSize", "1048576", true}, // the producer's default, which 0 stands for
		{"Loopback", "true", true},
	} {
		if got[want.Key] != want {
			t.Errorf("%s: %+v, want %+v", want.Key, got[want.Key], want)
		}
	}
	if order[0] != "Address" || order[len(order)-1] != "StackSize" {
		t.Errorf("order %v", order)
	}
	if f.Settings(1) != nil || f.Settings(-1) != nil {
		t.Error("settings of a datasource that does not exist")
	}
}

// TestDegradations: the [DataSources.degradations] table reaches the
// producer as the texts its Set takes, each written key and no other, and
// the status constants as the bits of Status.
func TestDegradations(t *testing.T) {
	src := edit(t, baseRD, `elevation_signal = "El"`, "elevation_signal = \"El\"\naz_fault = true\nel_valid = false") + `
[DataSources.degradations]
loss_probability = 0.25
burst_loss_ms = 40
jitter_ms = 0.5
freeze = true
seq_jump = -3
`
	f, err := Parse("d.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	rd := f.DataSources[0].RD100S
	want := map[string]string{"loss_probability": "0.25", "burst_loss_ms": "40", "jitter_ms": "0.5", "freeze": "true", "seq_jump": "-3"}
	if !reflect.DeepEqual(rd.Degradations, want) {
		t.Errorf("degradations %v, want %v", rd.Degradations, want)
	}
	if st := rd.Status; st != rdwire.AzValid|rdwire.AzRefOK|rdwire.ElRefOK|rdwire.AzFault {
		t.Errorf("status %v", st)
	}
}

// TestDocumentedBounds: the defaults and bounds the docs show are the
// producers' own: a value at a bound passes their Validate, one past it
// fails at the key the docs name.
func TestDocumentedBounds(t *testing.T) {
	one := []datasource.Signal{{Name: "A", Type: datasource.Uint8}}
	rejects := func(err error, key string) bool {
		var ce *datasource.ConfigError
		return errors.As(err, &ce) && ce.Parameter == key
	}
	udps := func(f func(c *udpstreamer.Config)) error {
		c := udpstreamer.Config{Name: "U", Signals: one}
		f(&c)
		return udpstreamer.Validate(&c)
	}
	flat := func(f func(c *flatudp.Config)) error {
		c := flatudp.Config{Name: "F", Address: "127.0.0.1", ExecutionMode: "RealTimeThread", Signals: one}
		f(&c)
		return flatudp.Validate(&c)
	}
	rd := func(f func(c *rd100s.Config)) error {
		c := rd100s.DefaultConfig()
		c.Name, c.DestHost, c.AzimuthSignal, c.ElevationSignal = "E", "127.0.0.1", "A", "A"
		c.Signals = one
		f(&c)
		return rd100s.Validate(&c)
	}
	for _, b := range []struct {
		name     string
		at, past error
		key      string
	}{
		{"HandOffDepth", udps(func(c *udpstreamer.Config) { c.HandOffDepth = udpsMaxHandOffDepth }),
			udps(func(c *udpstreamer.Config) { c.HandOffDepth = udpsMaxHandOffDepth + 1 }), "HandOffDepth"},
		{"UDPStreamer HandOffBytes", udps(func(c *udpstreamer.Config) { c.HandOffBytes = udpsMaxHandOffBytes }),
			udps(func(c *udpstreamer.Config) { c.HandOffBytes = udpsMaxHandOffBytes + 1 }), "HandOffBytes"},
		{"UDPStreamer HandOffTime", udps(func(c *udpstreamer.Config) { c.HandOffTime = maxHandOffTime }),
			udps(func(c *udpstreamer.Config) { c.HandOffTime = maxHandOffTime + 1 }), "HandOffTime"},
		{"NumberOfBuffers", flat(func(c *flatudp.Config) { c.NumberOfBuffers = flatMaxBuffers }),
			flat(func(c *flatudp.Config) { c.NumberOfBuffers = flatMaxBuffers + 1 }), "NumberOfBuffers"},
		{"FlatUDP HandOffBytes", flat(func(c *flatudp.Config) { c.HandOffBytes = flatMaxRingBytes }),
			flat(func(c *flatudp.Config) { c.HandOffBytes = flatMaxRingBytes + 1 }), "HandOffBytes"},
		{"rate_hz", rd(func(c *rd100s.Config) { c.RateHz = rdMaxRateHz }),
			rd(func(c *rd100s.Config) { c.RateHz = rdMaxRateHz * 1.001 }), "rate_hz"},
		{"rate_hz, slowest", rd(func(c *rd100s.Config) { c.RateHz = rdMinRateHz }),
			rd(func(c *rd100s.Config) { c.RateHz = rdMinRateHz * 0.999 }), "rate_hz"},
		{"burst_loss_ms", rd(func(c *rd100s.Config) {
			c.Degradations = map[string]string{"burst_loss_ms": strconv.FormatInt(rdMaxBurstLoss.Milliseconds(), 10)}
		}), rd(func(c *rd100s.Config) {
			c.Degradations = map[string]string{"burst_loss_ms": strconv.FormatInt(rdMaxBurstLoss.Milliseconds()+1, 10)}
		}), "burst_loss_ms"},
		{"reorder_window_ms", rd(func(c *rd100s.Config) {
			c.Degradations = map[string]string{"reorder_window_ms": strconv.FormatInt(rdMaxReorderWindow.Milliseconds(), 10)}
		}), rd(func(c *rd100s.Config) {
			c.Degradations = map[string]string{"reorder_window_ms": strconv.FormatInt(rdMaxReorderWindow.Milliseconds()+1, 10)}
		}), "reorder_window_ms"},
	} {
		if b.at != nil || !rejects(b.past, b.key) {
			t.Errorf("%s: at the documented bound %v, past it %v", b.name, b.at, b.past)
		}
	}
	// The defaults: a UDPStreamer's datagrams and an automatic ring.
	s, err := udpstreamer.New(udpstreamer.Config{Name: "U", Signals: one}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.AllocateMemory(); err != nil {
		t.Fatal(err)
	}
	d := s.Internals().(interface{ Describe() string }).Describe()
	if want := fmt.Sprintf("(MaxPayloadSize %d)", udpsMaxPayloadSize); !strings.Contains(d, want) || !strings.Contains(d, fmt.Sprintf("%d cycles (auto), %v", handOffTime/time.Millisecond, handOffTime)) {
		t.Errorf("describe %q", d)
	}
	b, _ := json.Marshal(s.Internals().(interface{ StatusReport() any }).StatusReport())
	var st struct {
		Covers float64 `json:"hand_off_covers_ms"`
	}
	if json.Unmarshal(b, &st); st.Covers != float64(handOffTime/time.Millisecond) {
		t.Errorf("the default ring covers %v ms", st.Covers)
	}
	auto := func(budget int) int {
		s, err := udpstreamer.New(udpstreamer.Config{Name: "B", Signals: []datasource.Signal{{Name: "A", Type: datasource.Uint8, NumberOfDimensions: 1, NumberOfElements: 1 << 20}}, NetworkThread: datasource.NetworkThread{HandOffBytes: budget}}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		b, _ := json.Marshal(s.Internals().(interface{ StatusReport() any }).StatusReport())
		var st struct {
			Depth int `json:"hand_off_depth"`
		}
		json.Unmarshal(b, &st)
		return st.Depth
	}
	if a, b := auto(0), auto(handOffBytes); a != b || a == 0 {
		t.Errorf("default hand-off budget: %d cycles, with HandOffBytes %d: %d", a, handOffBytes, b)
	}
}

// defaultConfig returns the embedded configs/app.toml, the daemon's default.
func defaultConfig(tb testing.TB) []byte {
	tb.Helper()
	data, err := configs.FS.ReadFile("app.toml")
	if err != nil {
		tb.Fatal(err)
	}
	return data
}
