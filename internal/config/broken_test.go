package config

import (
	"errors"
	"strings"
	"testing"
)

// baseUDPS is a valid UDPStreamer application; line numbers in the cases
// below refer to it after the edits.
const baseUDPS = `[App]
HTTPAddress = "127.0.0.1:0"

[[Threads]]
Name = "RT1"
Frequency = 1000.0
GAMs = ["Timer", "Sine"]

[[GAMs]]
Name = "Timer"
Class = "Timer"
  [[GAMs.Outputs]]
  Signal = "Time"
  DataSource = "S"
  Alias = "T0"

[[GAMs]]
Name = "Sine"
Class = "Waveform"
  [[GAMs.Outputs]]
  Signal = "Out"
  DataSource = "S"
  Alias = "Ch1"

[[DataSources]]
Name = "S"
Class = "UDPStreamer"
  [[DataSources.Signals]]
  Name = "T0"
  Type = "uint32"
  [[DataSources.Signals]]
  Name = "Ch1"
  Type = "float32"
`

const baseFlat = `[[Threads]]
Name = "RT1"
Frequency = 1000.0
GAMs = ["Timer"]

[[GAMs]]
Name = "Timer"
Class = "Timer"
  [[GAMs.Outputs]]
  Signal = "Counter"
  DataSource = "F"

[[DataSources]]
Name = "F"
Class = "FlatUDP"
Address = "127.0.0.1"
ExecutionMode = "RealTimeThread"
  [[DataSources.Signals]]
  Name = "Counter"
  Type = "uint32"
`

const baseRD = `[[Threads]]
Name = "RT1"
Frequency = 100.0
GAMs = ["Az"]

[[GAMs]]
Name = "Az"
Class = "Waveform"
Waveform = "ramp"
  [[GAMs.Outputs]]
  Signal = "Out"
  DataSource = "E"
  Alias = "Az"

[[DataSources]]
Name = "E"
Class = "RD100S"
dest_host = "127.0.0.1"
azimuth_signal = "Az"
elevation_signal = "El"
  [[DataSources.Signals]]
  Name = "Az"
  Type = "float64"
  [[DataSources.Signals]]
  Name = "El"
  Type = "float64"
`

// edit applies old→new replacements (each old must occur) to base.
func edit(t *testing.T, base string, pairs ...string) string {
	t.Helper()
	s := base
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("edit: %q not in base", pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

func TestBaseConfigsValid(t *testing.T) {
	for name, base := range map[string]string{"udps": baseUDPS, "flat": baseFlat, "rd": baseRD} {
		if _, err := Parse(name+".toml", []byte(base)); err != nil {
			t.Errorf("%s:\n%v", name, err)
		}
	}
}

func TestBrokenConfigs(t *testing.T) {
	const sigCh1 = `DataSources[0] "S" Signals[1] "Ch1"`
	cases := []struct {
		name  string
		base  string
		edits []string
		want  string // the single expected error line
	}{
		// Strict decoding.
		{"unknown signal key", baseUDPS, []string{`Type = "float32"`, "Type = \"float32\"\n  Colour = \"red\""},
			`t.toml:34:3: ` + sigCh1 + `: Colour: unknown key "Colour"; expected one of Name, Type, NumberOfDimensions, NumberOfElements, Rows, Cols, Unit, RangeMin, RangeMax, QuantizedType, TimeMode, TimeSignal, SamplingRate`},
		{"unknown key suggestion", baseUDPS, []string{`Class = "UDPStreamer"`, "Class = \"UDPStreamer\"\nport = 1"},
			`t.toml:28:1: DataSources[0] "S": port: unknown key "port" (did you mean "Port"?); expected one of Name, Class, Signals, Port, MaxPayloadSize, Address, AllowedClients, CPUMask, Priority, StackSize`},
		{"unknown table", baseUDPS, []string{"[App]", "[Ap]"},
			`t.toml:1:1: Ap: unknown key "Ap"; expected one of App, Threads, GAMs, DataSources`},
		{"UDPStreamer key on FlatUDP signal", baseFlat, []string{`Type = "uint32"`, "Type = \"uint32\"\n  QuantizedType = \"uint8\""},
			`t.toml:21:3: DataSources[0] "F" Signals[0] "Counter": QuantizedType: applies only to UDPStreamer signals`},
		{"wrong type string for number", baseUDPS, []string{"Frequency = 1000.0", `Frequency = "fast"`},
			`t.toml:6:1: Threads[0] "RT1": Frequency: expected a number, got string "fast"`},
		{"wrong type float for integer", baseUDPS, []string{`Class = "UDPStreamer"`, "Class = \"UDPStreamer\"\nPort = 44500.5"},
			`t.toml:28:1: DataSources[0] "S": Port: expected an integer 1..65535, got float 44500.5`},
		{"wrong type CPUMask", baseUDPS, []string{"Frequency = 1000.0", "Frequency = 1000.0\nCPUMask = true"},
			`t.toml:7:1: Threads[0] "RT1": CPUMask: expected a CPU bit mask (string such as "0x2" or integer), got boolean true`},
		{"bad CPUMask string", baseUDPS, []string{"Frequency = 1000.0", "Frequency = 1000.0\nCPUMask = \"0xZZ\""},
			`t.toml:7:1: Threads[0] "RT1": CPUMask: expected a CPU bit mask such as "0x2", "0b10" or 2, got "0xZZ"`},
		{"wrong type table for array", baseUDPS, []string{"[[DataSources]]", "[DataSources]"},
			`t.toml:14:3: GAMs[0] "Timer" Outputs[0]: DataSource: no datasource named "S"
t.toml:22:3: GAMs[1] "Sine" Outputs[0]: DataSource: no datasource named "S"
t.toml:25:1: DataSources: expected an array of tables ([[DataSources]]), got table`},
		{"missing signal type", baseUDPS, []string{"  Type = \"float32\"\n", ""},
			`t.toml:31:3: ` + sigCh1 + `: Type: required key is missing (expected a type name such as "float32")`},
		{"missing threads", baseUDPS, []string{"[[Threads]]\nName = \"RT1\"\nFrequency = 1000.0\nGAMs = [\"Timer\", \"Sine\"]\n", ""},
			`t.toml:1:1: Threads: at least one [[Threads]] table is required`},
		{"missing thread GAMs", baseFlat, []string{"GAMs = [\"Timer\"]\n", ""},
			`t.toml:1:1: Threads[0] "RT1": GAMs: required key is missing (expected an array of GAM names, in execution order)`},
		{"empty name", baseUDPS, []string{`Name = "Ch1"`, `Name = ""`},
			`t.toml:23:3: GAMs[1] "Sine" Outputs[0]: Alias: datasource "S" has no signal named "Ch1"
t.toml:32:3: DataSources[0] "S" Signals[1]: Name: must not be empty`},

		// App.
		{"log level", baseUDPS, []string{`HTTPAddress = "127.0.0.1:0"`, `LogLevel = "verbose"`},
			`t.toml:2:1: App: LogLevel: expected one of "debug", "info", "warn", "error", got "verbose"`},
		{"http address", baseUDPS, []string{`"127.0.0.1:0"`, `"localhost"`},
			`t.toml:2:1: App: HTTPAddress: expected host:port such as "127.0.0.1:9100" or "" to disable HTTP, got "localhost"`},
		{"memory limit", baseUDPS, []string{`HTTPAddress = "127.0.0.1:0"`, `MemoryLimit = -1`},
			`t.toml:2:1: App: MemoryLimit: must be 0..9223372036854775807, got -1`},

		// Threads.
		{"frequency and period", baseUDPS, []string{"Frequency = 1000.0", "Frequency = 1000.0\nPeriod = \"1ms\""},
			`t.toml:7:1: Threads[0] "RT1": Period: give Frequency or Period, not both`},
		{"neither frequency nor period", baseUDPS, []string{"Frequency = 1000.0\n", ""},
			`t.toml:4:1: Threads[0] "RT1": Frequency: required key is missing (expected a frequency in Hz, or Period = "1ms")`},
		{"bad period", baseUDPS, []string{"Frequency = 1000.0", `Period = "1 fortnight"`},
			`t.toml:6:1: Threads[0] "RT1": Period: expected a duration such as "1ms" or "250us", got "1 fortnight"`},
		{"zero frequency", baseUDPS, []string{"Frequency = 1000.0", "Frequency = 0"},
			`t.toml:6:1: Threads[0] "RT1": Frequency: must be > 0 Hz, got 0`},
		{"priority", baseUDPS, []string{"Frequency = 1000.0", "Frequency = 1000.0\nPriority = 100"},
			`t.toml:7:1: Threads[0] "RT1": Priority: must be 0..99, got 100`},
		{"sleep nature", baseUDPS, []string{"Frequency = 1000.0", "Frequency = 1000.0\nSleepNature = \"Nap\""},
			`t.toml:7:1: Threads[0] "RT1": SleepNature: expected one of "Default", "Busy", "Hybrid", got "Nap"`},
		{"sleep percentage without hybrid", baseUDPS, []string{"Frequency = 1000.0", "Frequency = 1000.0\nSleepPercentage = 50"},
			`t.toml:7:1: Threads[0] "RT1": SleepPercentage: applies only to SleepNature = "Hybrid"`},
		{"unknown GAM in thread", baseUDPS, []string{`"Sine"]`, `"Sine", "Cosine"]`},
			`t.toml:7:26: Threads[0] "RT1" GAMs[2]: no GAM named "Cosine"`},
		{"GAM in no thread", baseUDPS, []string{`GAMs = ["Timer", "Sine"]`, `GAMs = ["Timer"]`},
			`t.toml:18:1: GAMs[1] "Sine": Name: GAM "Sine" is not run by any thread; list it in the GAMs of one [[Threads]]`},
		{"GAM in two threads", baseUDPS, []string{"\n[[GAMs]]", "\n[[Threads]]\nName = \"RT2\"\nFrequency = 10.0\nGAMs = [\"Sine\"]\n\n[[GAMs]]"},
			`t.toml:12:9: Threads[1] "RT2" GAMs[0]: GAM "Sine" already runs in thread "RT1"; each GAM runs in exactly one thread`},
		{"duplicate GAM", baseUDPS, []string{`Name = "Sine"`, `Name = "Timer"`, `GAMs = ["Timer", "Sine"]`, `GAMs = ["Timer"]`},
			`t.toml:18:1: GAMs[1] "Timer": Name: duplicates GAMs[0]; names must be unique`},
		{"GAM listed twice", baseUDPS, []string{`GAMs = ["Timer", "Sine"]`, `GAMs = ["Timer", "Sine", "Timer"]`},
			`t.toml:7:26: Threads[0] "RT1" GAMs[2]: GAM "Timer" is listed twice in this thread`},

		// GAMs.
		{"GAM class", baseUDPS, []string{`Class = "Waveform"`, `Class = "Oscillator"`},
			`t.toml:19:1: GAMs[1] "Sine": Class: expected one of "Timer", "Waveform", "IOGAM", got "Oscillator"`},
		{"timer output", baseUDPS, []string{`Signal = "Time"`, `Signal = "Clock"`},
			`t.toml:13:3: GAMs[0] "Timer" Outputs[0]: Signal: a Timer has outputs "Counter" and "Time", got "Clock"`},
		{"waveform shape", baseUDPS, []string{`Class = "Waveform"`, "Class = \"Waveform\"\nWaveform = \"chirp\""},
			`t.toml:20:1: GAMs[1] "Sine": Waveform: expected one of "sine", "square", "triangle", "sawtooth", "ramp", "constant", "noise", got "chirp"`},
		{"duty cycle on sine", baseUDPS, []string{`Class = "Waveform"`, "Class = \"Waveform\"\nDutyCycle = 0.3"},
			`t.toml:20:1: GAMs[1] "Sine": DutyCycle: applies only to Waveform = "square"`},
		{"output to unknown datasource", baseUDPS, []string{`DataSource = "S"` + "\n  Alias = \"Ch1\"", `DataSource = "X"` + "\n  Alias = \"Ch1\""},
			`t.toml:22:3: GAMs[1] "Sine" Outputs[0]: DataSource: no datasource named "X"`},
		{"output to unknown signal", baseUDPS, []string{`Alias = "Ch1"`, `Alias = "Ch2"`},
			`t.toml:23:3: GAMs[1] "Sine" Outputs[0]: Alias: datasource "S" has no signal named "Ch2"`},
		{"signal fed twice", baseUDPS, []string{`Alias = "Ch1"`, `Alias = "T0"`},
			`t.toml:23:3: GAMs[1] "Sine" Outputs[0]: Alias: signal "T0" of datasource "S" is already written by GAM "Timer"; a signal has at most one writer`},
		{"datasource written by two threads", baseUDPS, []string{`GAMs = ["Timer", "Sine"]`, "GAMs = [\"Timer\"]\n\n[[Threads]]\nName = \"RT2\"\nFrequency = 10.0\nGAMs = [\"Sine\"]"},
			`t.toml:27:3: GAMs[1] "Sine" Outputs[0]: DataSource: datasource "S" is already written by thread "RT1"; a datasource is synchronised by one thread`},
		{"IOGAM input from a later GAM", baseUDPS, []string{`"Sine"]`, `"Copy", "Sine"]`, "\n[[DataSources]]", "\n[[GAMs]]\nName = \"Copy\"\nClass = \"IOGAM\"\nInputs = [\"Sine.Out\"]\n  [[GAMs.Outputs]]\n  DataSource = \"S\"\n  Alias = \"Ch2\"\n\n[[DataSources]]", `Type = "float32"`, "Type = \"float32\"\n  [[DataSources.Signals]]\n  Name = \"Ch2\"\n  Type = \"float32\""},
			`t.toml:28:11: GAMs[2] "Copy" Inputs[0]: GAM "Sine" must run earlier in the same thread as "Copy"`},
		{"IOGAM unknown output", baseUDPS, []string{`"Sine"]`, `"Sine", "Copy"]`, "\n[[DataSources]]", "\n[[GAMs]]\nName = \"Copy\"\nClass = \"IOGAM\"\nInputs = [\"Sine.Cos\"]\n  [[GAMs.Outputs]]\n  DataSource = \"S\"\n  Alias = \"Ch2\"\n\n[[DataSources]]", `Type = "float32"`, "Type = \"float32\"\n  [[DataSources.Signals]]\n  Name = \"Ch2\"\n  Type = \"float32\""},
			`t.toml:28:11: GAMs[2] "Copy" Inputs[0]: GAM "Sine" has no output "Cos"`},
		{"IOGAM size mismatch", baseUDPS, []string{`"Sine"]`, `"Sine", "Copy"]`, "\n[[DataSources]]", "\n[[GAMs]]\nName = \"Copy\"\nClass = \"IOGAM\"\nInputs = [\"Sine.Out\"]\n  [[GAMs.Outputs]]\n  DataSource = \"S\"\n  Alias = \"Ch2\"\n\n[[DataSources]]", `Type = "float32"`, "Type = \"float32\"\n  [[DataSources.Signals]]\n  Name = \"Ch2\"\n  Type = \"float64\""},
			`t.toml:29:3: GAMs[2] "Copy" Outputs[0]: an IOGAM copies bytes: input "Sine.Out" is float32[1], output signal "Ch2" is float64[1]`},
		{"IOGAM input syntax", baseUDPS, []string{`"Sine"]`, `"Sine", "Copy"]`, "\n[[DataSources]]", "\n[[GAMs]]\nName = \"Copy\"\nClass = \"IOGAM\"\nInputs = [\"SineOut\"]\n  [[GAMs.Outputs]]\n  Signal = \"X\"\n  DataSource = \"S\"\n  Alias = \"Ch2\"\n\n[[DataSources]]", `Type = "float32"`, "Type = \"float32\"\n  [[DataSources.Signals]]\n  Name = \"Ch2\"\n  Type = \"float32\""},
			`t.toml:28:11: GAMs[2] "Copy" Inputs[0]: expected "GAM.Signal", got "SineOut"`},

		// UDPStreamer.
		{"port zero", baseUDPS, []string{`Class = "UDPStreamer"`, "Class = \"UDPStreamer\"\nPort = 0"},
			`t.toml:28:1: DataSources[0] "S": Port: must be 1..65535, got 0`},
		{"max payload", baseUDPS, []string{`Class = "UDPStreamer"`, "Class = \"UDPStreamer\"\nMaxPayloadSize = 17"},
			`t.toml:28:1: DataSources[0] "S": MaxPayloadSize: must be 18..65507 (the 17-byte header plus at least one byte, at most the IPv4 UDP payload limit), got 17`},
		{"quantised integer", baseUDPS, []string{`Type = "uint32"`, "Type = \"uint32\"\n  QuantizedType = \"uint16\""},
			`t.toml:31:3: DataSources[0] "S" Signals[0] "T0": QuantizedType: quantisation needs a float32 or float64 signal, got uint32`},
		{"quantised range", baseUDPS, []string{`Type = "float32"`, "Type = \"float32\"\n  QuantizedType = \"int8\"\n  RangeMin = 5.0\n  RangeMax = 5.0"},
			`t.toml:36:3: ` + sigCh1 + `: RangeMax: quantisation needs a finite RangeMax > RangeMin, got RangeMin 5 and RangeMax 5`},
		{"quantised type name", baseUDPS, []string{`Type = "float32"`, "Type = \"float32\"\n  QuantizedType = \"uint12\""},
			`t.toml:34:3: ` + sigCh1 + `: QuantizedType: expected one of none, uint8, int8, uint16, int16, got "uint12"`},
		{"range not finite", baseUDPS, []string{`Type = "float32"`, "Type = \"float32\"\n  RangeMax = inf"},
			`t.toml:34:3: ` + sigCh1 + `: RangeMax: must be a finite number, got +Inf`},
		{"time signal missing", baseUDPS, []string{`Type = "float32"`, "Type = \"float32\"\n  NumberOfDimensions = 1\n  NumberOfElements = 10\n  TimeMode = \"FirstSample\"\n  SamplingRate = 1e4"},
			`t.toml:31:3: ` + sigCh1 + `: TimeSignal: is required when TimeMode is FirstSample`},
		{"time signal unknown", baseUDPS, []string{`Type = "float32"`, "Type = \"float32\"\n  NumberOfDimensions = 1\n  NumberOfElements = 10\n  TimeMode = \"LastSample\"\n  TimeSignal = \"T9\"\n  SamplingRate = 1e4"},
			`t.toml:37:3: ` + sigCh1 + `: TimeSignal: names no signal of this datasource: "T9"`},
		{"time signal not scalar", baseUDPS, []string{`Type = "uint32"`, "Type = \"uint32\"\n  NumberOfDimensions = 1\n  NumberOfElements = 2", `Type = "float32"`, "Type = \"float32\"\n  NumberOfDimensions = 1\n  NumberOfElements = 10\n  TimeMode = \"FirstSample\"\n  TimeSignal = \"T0\"\n  SamplingRate = 1e4"},
			`t.toml:15:3: GAMs[0] "Timer" Outputs[0]: Alias: a Timer output is a uint32 scalar, but signal "T0" of datasource "S" is uint32[2]` + "\n" +
				`t.toml:39:3: ` + sigCh1 + `: TimeSignal: FirstSample needs a scalar time signal; "T0" has 2 elements`},
		{"sampling rate", baseUDPS, []string{`Type = "float32"`, "Type = \"float32\"\n  NumberOfDimensions = 1\n  NumberOfElements = 10\n  TimeMode = \"FirstSample\"\n  TimeSignal = \"T0\""},
			`t.toml:31:3: ` + sigCh1 + `: SamplingRate: FirstSample needs SamplingRate > 0 Hz, got 0`},
		{"full array count", baseUDPS, []string{`Type = "float32"`, "Type = \"float32\"\n  NumberOfDimensions = 1\n  NumberOfElements = 10\n  TimeMode = \"FullArray\"\n  TimeSignal = \"T0\""},
			`t.toml:37:3: ` + sigCh1 + `: TimeSignal: FullArray needs a time signal with the same NumberOfElements (10); "T0" has 1`},
		{"time signal with packet time", baseUDPS, []string{`Type = "float32"`, "Type = \"float32\"\n  TimeSignal = \"T0\""},
			`t.toml:34:3: ` + sigCh1 + `: TimeSignal: is set but TimeMode is PacketTime; set TimeMode to FullArray, FirstSample or LastSample`},
		{"time mode name", baseUDPS, []string{`Type = "float32"`, "Type = \"float32\"\n  TimeMode = \"Wallclock\""},
			`t.toml:34:3: ` + sigCh1 + `: TimeMode: expected one of PacketTime, FullArray, FirstSample, LastSample, got "Wallclock"`},
		{"name too long", baseUDPS, []string{`"Ch1"`, `"` + strings.Repeat("x", 64) + `"`, `"Ch1"`, `"` + strings.Repeat("x", 64) + `"`},
			`t.toml:32:3: DataSources[0] "S" Signals[1] "` + strings.Repeat("x", 64) + `": Name: at most 63 bytes (the CONFIG field is NUL-terminated), got 64`},
		{"unit too long", baseUDPS, []string{`Type = "float32"`, "Type = \"float32\"\n  Unit = \"" + strings.Repeat("u", 32) + "\""},
			`t.toml:34:3: ` + sigCh1 + `: Unit: at most 31 bytes (the CONFIG field is NUL-terminated), got 32`},
		{"allowed clients", baseUDPS, []string{`Class = "UDPStreamer"`, "Class = \"UDPStreamer\"\nAllowedClients = [\"127.0.0.0/8\", \"lan\"]"},
			`t.toml:28:34: DataSources[0] "S" AllowedClients[1]: expected a CIDR prefix such as "127.0.0.0/8" or an address, got "lan"`},
		{"too many fragments", baseUDPS, []string{`Class = "UDPStreamer"`, "Class = \"UDPStreamer\"\nMaxPayloadSize = 18", `Type = "float32"`, "Type = \"float32\"\n  NumberOfDimensions = 1\n  NumberOfElements = 20000"},
			`t.toml:28:1: DataSources[0] "S": MaxPayloadSize: the DATA payload of 80012 bytes needs more than 65535 fragments of 1 bytes`},
		{"matrix without rows", baseUDPS, []string{`Type = "float32"`, "Type = \"float32\"\n  NumberOfDimensions = 2\n  Cols = 3"},
			`t.toml:31:3: ` + sigCh1 + `: Rows: required key is missing (expected an integer ≥ 1 for a matrix)`},
		{"scalar with elements", baseUDPS, []string{`Type = "float32"`, "Type = \"float32\"\n  NumberOfElements = 4"},
			`t.toml:34:3: ` + sigCh1 + `: NumberOfElements: a scalar (NumberOfDimensions = 0) has 1 element, got 4`},
		{"duplicate signal", baseUDPS, []string{`Name = "Ch1"`, `Name = "T0"`, `Alias = "Ch1"`, `Alias = "T0"`},
			`t.toml:23:3: GAMs[1] "Sine" Outputs[0]: Alias: signal "T0" of datasource "S" is already written by GAM "Timer"; a signal has at most one writer
t.toml:32:3: DataSources[0] "S" Signals[1] "T0": Name: duplicates signal #0; names must be unique`},
		{"datasource class", baseUDPS, []string{`Class = "UDPStreamer"`, `Class = "TCPStreamer"`},
			`t.toml:27:1: DataSources[0] "S": Class: expected one of "UDPStreamer", "RD100S", "FlatUDP", got "TCPStreamer"`},

		// FlatUDP.
		{"flat address missing", baseFlat, []string{"Address = \"127.0.0.1\"\n", ""},
			`t.toml:13:1: DataSources[0] "F": Address: is required: the destination IP address (unicast or multicast group)`},
		{"flat address bad", baseFlat, []string{`"127.0.0.1"`, `"127.0.0.300"`},
			`t.toml:16:1: DataSources[0] "F": Address: must be an IP address (unicast or multicast group), got "127.0.0.300"`},
		{"flat execution mode", baseFlat, []string{`"RealTimeThread"`, `"RealTime"`},
			`t.toml:17:1: DataSources[0] "F": ExecutionMode: expected one of "IndependentThread", "RealTimeThread", got "RealTime"`},
		{"flat elements", baseFlat, []string{`Type = "uint32"`, "Type = \"uint32\"\n  NumberOfDimensions = 1\n  NumberOfElements = 5000"},
			`t.toml:10:3: GAMs[0] "Timer" Outputs[0]: Signal: a Timer output is a uint32 scalar, but signal "Counter" of datasource "F" is uint32[5000]` + "\n" +
				`t.toml:22:3: DataSources[0] "F" Signals[0] "Counter": NumberOfElements: must be 1..4096 for FlatUDP, got 5000`},
		{"flat total size", baseFlat, []string{`Type = "uint32"`, "Type = \"uint32\"\n  [[DataSources.Signals]]\n  Name = \"A\"\n  Type = \"float64\"\n  NumberOfDimensions = 1\n  NumberOfElements = 4096\n  [[DataSources.Signals]]\n  Name = \"B\"\n  Type = \"float64\"\n  NumberOfDimensions = 1\n  NumberOfElements = 4096"},
			`t.toml:18:3: DataSources[0] "F": Signals: a datagram of 65540 bytes exceeds the UDP limit of 65507 bytes`},
		{"flat trigger", baseFlat, []string{`ExecutionMode = "RealTimeThread"`, `ExecutionMode = "IndependentThread"`},
			`t.toml:19:3: DataSources[0] "F" Signals[0] "Counter": Name: in IndependentThread mode the first signal must be the scalar uint8 "Trigger", got "Counter" uint32[1]`},
		{"flat trigger default mode", baseFlat, []string{"ExecutionMode = \"RealTimeThread\"\n", ""},
			`t.toml:18:3: DataSources[0] "F" Signals[0] "Counter": Name: in IndependentThread mode the first signal must be the scalar uint8 "Trigger", got "Counter" uint32[1]`},
		{"flat pre-triggers in RT mode", baseFlat, []string{`ExecutionMode = "RealTimeThread"`, "ExecutionMode = \"RealTimeThread\"\nNumberOfPreTriggers = 2"},
			`t.toml:18:1: DataSources[0] "F": NumberOfPreTriggers: applies only to ExecutionMode IndependentThread (RealTimeThread sends every cycle)`},
		{"flat ttl on unicast", baseFlat, []string{`ExecutionMode = "RealTimeThread"`, "ExecutionMode = \"RealTimeThread\"\nTTL = 4"},
			`t.toml:18:1: DataSources[0] "F": TTL: applies only to a multicast Address`},
		{"flat byte order", baseFlat, []string{`ExecutionMode = "RealTimeThread"`, "ExecutionMode = \"RealTimeThread\"\nByteOrder = \"middle\""},
			`t.toml:18:1: DataSources[0] "F": ByteOrder: expected one of "little", "big", got "middle"`},

		// RD100S.
		{"rd rate", baseRD, []string{`dest_host = "127.0.0.1"`, "dest_host = \"127.0.0.1\"\nrate_hz = 0"},
			`t.toml:19:1: DataSources[0] "E": rate_hz: must not be 0 (leave rate_hz out for its default)`},
		{"rd dest port", baseRD, []string{`dest_host = "127.0.0.1"`, "dest_host = \"127.0.0.1\"\ndest_port = 0"},
			`t.toml:19:1: DataSources[0] "E": dest_port: must be 1..65535, got 0`},
		{"rd dest host missing", baseRD, []string{"dest_host = \"127.0.0.1\"\n", ""},
			`t.toml:15:1: DataSources[0] "E": dest_host: is required (the receiver's IPv4 address or host name)`},
		{"rd unknown mapped signal", baseRD, []string{`elevation_signal = "El"`, `elevation_signal = "Elev"`},
			`t.toml:20:1: DataSources[0] "E": elevation_signal: names no signal of this datasource: "Elev"`},
		{"rd mapped array", baseRD, []string{"Name = \"El\"\n  Type = \"float64\"", "Name = \"El\"\n  Type = \"float64\"\n  NumberOfDimensions = 1\n  NumberOfElements = 2"},
			`t.toml:20:1: DataSources[0] "E": elevation_signal: signal "El" must be a scalar (NumberOfDimensions 0), got 1 dimensions and 2 elements`},
		{"rd status type", baseRD, []string{`elevation_signal = "El"`, "elevation_signal = \"El\"\nstatus_signal = \"El\""},
			`t.toml:21:1: DataSources[0] "E": status_signal: signal "El" must have an integer type (its bits drive the status word), got float64`},
		{"rd status conflicts", baseRD, []string{"Name = \"El\"\n  Type = \"float64\"", "Name = \"El\"\n  Type = \"float64\"\n  [[DataSources.Signals]]\n  Name = \"St\"\n  Type = \"uint16\"", `elevation_signal = "El"`, "elevation_signal = \"El\"\nstatus_signal = \"St\"\naz_valid = false"},
			`t.toml:22:1: DataSources[0] "E": az_valid: conflicts with status_signal, which drives the status bits`},
		{"rd unit", baseRD, []string{`elevation_signal = "El"`, "elevation_signal = \"El\"\nazimuth_unit = \"rad\""},
			`t.toml:21:1: DataSources[0] "E": azimuth_unit: expected one of "deg", "mdeg", got "rad"`},
		{"rd degradation range", baseRD, []string{`elevation_signal = "El"`, "elevation_signal = \"El\"\n[DataSources.degradations]\nloss_probability = 1.5"},
			`t.toml:22:1: DataSources[0] "E" degradations: loss_probability: must be a probability in 0..1, got 1.5`},
		{"rd degradation unknown", baseRD, []string{`elevation_signal = "El"`, "elevation_signal = \"El\"\n[DataSources.degradations]\nloss = 0.5"},
			`t.toml:22:1: DataSources[0] "E" degradations: loss: unknown key "loss"; expected one of loss_probability, loss_every_n, burst_loss_ms, duplicate_probability, reorder_window_ms, jitter_ms, freeze, invalid_az, invalid_el, seq_jump, silence`},
		{"rd UDPStreamer key", baseRD, []string{"Name = \"Az\"\n  Type = \"float64\"", "Name = \"Az\"\n  Type = \"float64\"\n  TimeMode = \"FirstSample\""},
			`t.toml:24:3: DataSources[0] "E" Signals[0] "Az": TimeMode: applies only to UDPStreamer signals`},

		// TOML syntax.
		{"syntax", baseUDPS, []string{`Frequency = 1000.0`, `Frequency = `},
			`t.toml:6:13: unexpected character U+000A at start of value`},
		{"duplicate key", baseUDPS, []string{`Frequency = 1000.0`, "Frequency = 1000.0\nFrequency = 10.0"},
			`t.toml:7:1: key Frequency is already defined`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := edit(t, c.base, c.edits...)
			f, err := Parse("t.toml", []byte(src))
			if err == nil {
				t.Fatalf("no error; parsed %+v", f)
			}
			if f != nil {
				t.Errorf("non-nil *File with an error")
			}
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("error %T is not an Errors", err)
			}
			if got := err.Error(); got != c.want {
				t.Errorf("got\n%s\nwant\n%s\nsource:\n%s", got, c.want, src)
			}
		})
	}
}
