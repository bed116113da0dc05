// Package config loads the TOML file that describes a streamerd application the MARTe2 way: RT threads, GAMs and datasources.
//
// Usage:
//  1. f, err := config.Load("app.toml") reads, strictly decodes and validates
//     the file. On failure err is an Errors value listing every problem
//     found, one "<file>:<line>:<col>: <where>: <key>: <message>" per line.
//  2. Build the producers from f.DataSources: each holds its producer's own
//     Config (UDPStreamer, RD100S or FlatUDP), already checked by that
//     producer's Validate; pass what New still reports (a host name that
//     does not resolve) through f.WrapConfigErrors so the user sees file
//     positions too.
//  3. Build the threads from f.Threads and f.GAMs; every cross reference is
//     already resolved to indexes (GAM.Thread, Output.DataSource/Signal
//     indexes, Input.GAM/Output indexes).
//
// Every key is declared once, in a table of key declarations (appKeys,
// threadKeys, udpStreamerKeys, ...): its name, its TOML type with the
// range or values the file may write, its default, its unit and its doc.
// That declaration reads the key into its Go field, checks it, positions
// its errors at file:line:col, prints it in streamerd -describe, and
// writes its row of docs/config.md, which a test keeps in step. An
// unknown key is reported with the known key closest to it.
//
// Every rule of a datasource class lives once, in its producer: the class's
// keys are decoded into the producer's Config and checked by the producer's
// Validate, whose errors are positioned at their keys. The declarations
// check only what the file adds: TOML types, the spelling of names (types,
// modes, units), keys that have no effect for the class or mode chosen, and
// a 0 written where the producer's zero value means its default (a file
// asks for a default by leaving the key out).
//
// To add a key, add one field() line to its table's declarations, in the
// file of that table (app.go, thread.go, gam.go, datasource.go,
// udpstreamer.go, rd100s.go, flatudp.go, replay.go), with the Go field it
// fills:
//
//	field("HTTPAllowedHosts", strs(), func(a *App) *[]string { return &a.HTTPAllowedHosts }).
//		Doc("host names the HTTP endpoint answers to; empty: any"),
//
// A default other than the field's zero value goes in the table's
// defaults; a rule of one key goes in .Check or .Only, a rule of a
// producer in the producer's Validate (not here); a value the existing
// types (types.go) do not read, such as an integer or "auto", gets a new
// valueType. A class that takes a key of another class with the same
// meaning reuses that declaration with via, as the Replay class takes
// the UDPStreamer's server keys (replay.go). Then run go test
// ./internal/config -update to write the key's row into docs/config.md.
//
// The package does no I/O beyond Load reading the file, and Parse opening
// the recording of each Replay datasource to read its signal list (the
// footer, not the rows). A *File is
// immutable after Parse returns and safe to read from any goroutine.
package config

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp"
	"github.com/streamerd/streamerd/datasource/rd100s"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/regfile"
	"github.com/streamerd/streamerd/internal/replay"
	"github.com/streamerd/streamerd/rt"
	"github.com/streamerd/streamerd/rt/cpu"
)

// File is a loaded configuration. Path is the name used in error messages.
type File struct {
	Path        string
	App         App
	Threads     []Thread
	GAMs        []GAM
	DataSources []DataSource

	// Warnings lists legal but risky choices (spinning SCHED_FIFO threads,
	// a UDPStreamer open to any client), positioned like errors, for the
	// caller to log.
	Warnings []*Error

	ix    *index            // key positions
	raw   map[string]any    // the decoded document, for names in messages
	flags map[string]string // key path → the command-line flag that set it (Override)
}

// Override sets the key at Path ("App.HTTPAddress") to Value as though the
// file said so, for a command-line flag that overrides the file: the
// value meets the key's rules and warnings, whose messages name Flag
// instead of a line of the file.
type Override struct {
	Path  string
	Value any // as TOML decodes it: a string, int64, float64, bool
	Flag  string
}

// App holds the process-wide settings of the [App] table.
type App struct {
	HTTPAddress  string // host:port of the HTTP endpoint; "" disables it
	ScopeAddress string // host:port of the web scope of the UDPStreamer datasources; "" (the default) disables it
	LogLevel     string // "debug", "info", "warn" or "error"
	LogFormat    string // "text" or "json"
	LockMemory   bool   // mlockall(MCL_CURRENT|MCL_FUTURE) at start
	GCPolicy     string // "default" or "off" (GOGC off during the run)
	MemoryLimit  int64  // bytes for debug.SetMemoryLimit; 0 = none; MemoryLimitAuto when absent (1 GiB is filled in when GCPolicy is "off")
	// CPUWakeLatency, when ≥ 0, holds the PM QoS CPU wake-up latency at
	// this many µs while the application runs (/dev/cpu_dma_latency); -1
	// leaves the system's setting.
	CPUWakeLatency int
	// RuntimePriority, when > 0, runs every thread of the process under
	// normal scheduling (the Go runtime's, the HTTP server's) at SCHED_FIFO
	// at this priority during the run.
	RuntimePriority int

	// HTTPTokenFile names a file holding the bearer token every HTTP
	// request must carry (Authorization: Bearer <token>); "" for none.
	// The file is read when the application is built.
	HTTPTokenFile string
	// HTTPInsecureControl serves /force, /release and /degrade without a
	// token on an HTTPAddress that is not loopback (refused otherwise).
	HTTPInsecureControl bool
	// HTTPAllowedHosts are host names the HTTP endpoint and the scope
	// answer to besides localhost, IP addresses and the host of their
	// address (a request naming another host gets 421).
	HTTPAllowedHosts []string
	// LateTraceDir, when set, is the directory where a Go execution trace
	// of the seconds before each late cycle is written (a few a run).
	LateTraceDir string
}

// MemoryLimitAuto is App.MemoryLimit when the file leaves it out: the
// daemon chooses the limit (see internal/app).
const MemoryLimitAuto = -1

// SlogLevel returns LogLevel as a slog.Level.
func (a *App) SlogLevel() slog.Level {
	switch a.LogLevel {
	case "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// SleepNature says how an RT thread waits for its next period: rt's enum.
type SleepNature = rt.SleepNature

// The sleep natures of an RT thread.
const (
	SleepDefault = rt.Default // sleep on the timer for the whole period
	SleepBusy    = rt.Busy    // spin on the clock for the whole period
	SleepHybrid  = rt.Hybrid  // sleep SleepPercentage of the period, then spin
)

var sleepNatureNames = []string{SleepDefault.String(), SleepBusy.String(), SleepHybrid.String()}

// Thread is one RT thread: it runs its GAMs in order once per Period.
type Thread struct {
	Name            string
	Frequency       float64       // Hz, 1/Period
	Period          time.Duration // from Frequency or Period
	CPUMask         cpu.Mask      // 0 = no pinning
	Priority        int           // 0 normal scheduling, 1..cpu.MaxPriority SCHED_FIFO
	SleepNature     SleepNature
	SleepPercentage int           // Hybrid only: percent of the period slept before spinning
	LateThreshold   time.Duration // wake-up lateness from which a cycle is late; 0: half the period
	GAMs            []string      // GAM names in execution order
	GAMIndex        []int         // indexes into File.GAMs, same order
}

// GAM classes.
const (
	ClassTimer    = "Timer"
	ClassWaveform = "Waveform"
	ClassIOGAM    = "IOGAM"
	ClassText     = "Text"
)

// Timer output names.
const (
	TimerCounter = "Counter" // cycle counter, starts at 1, jumps by missed periods
	TimerTime    = "Time"    // microseconds since the thread started
)

// GAM is one function block. Waveform is set for Class Waveform only;
// Inputs for IOGAM only; Text for Class Text only.
type GAM struct {
	Name     string
	Class    string
	Thread   int // index into File.Threads of the thread that runs it
	Waveform *Waveform
	Inputs   []Input
	Text     string // the text a Text GAM writes into char8 signals
	Outputs  []Output
}

// Waveform holds the parameters of a Waveform GAM. Every value is finite.
type Waveform struct {
	Shape        string  // sine, square, triangle, sawtooth, ramp, constant or noise
	Amplitude    float64 // signal units
	Frequency    float64 // Hz of the waveform, ≥ 0
	Offset       float64 // signal units
	Phase        float64 // radians
	DutyCycle    float64 // square only, 0..1
	Seed         uint64  // noise only
	SamplingRate float64 // Hz between the elements of an array output; 0 = all elements equal
	TimeInput    string  // "" (cycle count) or "Time": evaluated at the thread's Time signal, as MARTe2's WaveformGAM
}

// Input is an IOGAM input: an output of a GAM that runs earlier in the
// same thread.
type Input struct {
	GAM, Signal string // as written: "GAM.Signal"
	GAMIndex    int    // index into File.GAMs
	OutputIndex int    // index into that GAM's Outputs
}

// Output feeds one datasource signal.
type Output struct {
	Signal          string // the GAM's output name
	DataSource      string // datasource name
	Alias           string // datasource signal name (defaults to Signal)
	DataSourceIndex int    // index into File.DataSources
	SignalIndex     int    // index into that datasource's Signals
}

// Datasource classes.
const (
	ClassUDPStreamer = "UDPStreamer"
	ClassRD100S      = "RD100S"
	ClassFlatUDP     = "FlatUDP"
	ClassReplay      = "Replay"
)

// DataSource is one output datasource. Exactly one of the class pointers is
// set, matching Class: the producer's own configuration, decoded from the
// file and checked by the producer's own Validate, ready for its New. Its
// Signals are the datasource's Signals; a Replay's are its recording's,
// read when the file was parsed.
type DataSource struct {
	Name        string
	Class       string
	Signals     []datasource.Signal
	UDPStreamer *UDPStreamer
	RD100S      *rd100s.Config
	FlatUDP     *FlatUDP
	Replay      *Replay
}

// UDPStreamer is a UDPStreamer datasource: the producer's Config, and the
// StackSize the file may write for MARTe2 compatibility, which changes
// nothing (goroutine stacks grow).
type UDPStreamer struct {
	udpstreamer.Config
	StackSize int
}

// FlatUDP is a FlatUDP datasource: the producer's Config, and the
// StackSize the file may write for MARTe2 compatibility, which changes
// nothing.
type FlatUDP struct {
	flatudp.Config
	StackSize int
}

// The producers' defaults and bounds the docs show. Each producer applies
// its own (its Validate names the rule); TestDocumentedBounds checks that
// these agree with them.
const (
	// The automatic hand-off ring (UDPStreamer's HandOffDepth, FlatUDP's
	// NumberOfBuffers, "auto"): the time of cycles it holds by default
	// and at most, and its memory by default.
	handOffTime    = 500 * time.Millisecond
	maxHandOffTime = time.Minute
	handOffBytes   = 64 << 20

	udpsMaxPayloadSize  = 1400 // UDPStreamer's default MaxPayloadSize
	udpsMaxHandOffDepth = 65536
	udpsMaxHandOffBytes = 256 << 20
	flatMaxBuffers      = 1 << 20 // FlatUDP's NumberOfBuffers
	flatMaxRingBytes    = 256 << 20
	rdMaxRateHz         = 10000.0
	rdMinRateHz         = 1.0 / 3600
	rdMaxBurstLoss      = time.Hour
	rdMaxReorderWindow  = 10 * time.Second
)

// marte2StackSize is MARTe2's default thread stack size, which a StackSize
// left out stands for.
const marte2StackSize = 1 << 20

// stackSize declares the StackSize key: a size ≥ 0, read and shown,
// accepted for MARTe2 compatibility.
func stackSize[S any](ptr func(*S) *int, doc string) key[S] {
	return field("StackSize", anyInt(), ptr).
		Default(shown(marte2StackSize)).
		Check(func(s *S) string {
			if n := *ptr(s); n < 0 {
				return fmt.Sprintf("must not be negative, got %d", n)
			}
			return ""
		}).
		Doc(doc)
}

// Replay is a Replay datasource: the recording it plays, and how, ready
// for replay.New(File, Options, ...).
type Replay struct {
	// File is the recording's path: as the file writes it when absolute,
	// else joined to the directory of the configuration file.
	File string
	replay.Options
}

// MaxFileSize is the size of the largest configuration file Load reads.
const MaxFileSize = 16 << 20

// Load reads the file at path and parses it with Parse, with overrides. A path that is not
// a regular file (a named pipe, /dev/zero, a directory) or a file larger
// than MaxFileSize is refused before it is read, with one line that says
// so.
func Load(path string, overrides ...Override) (*File, error) {
	data, err := regfile.Read(path, MaxFileSize)
	if err != nil {
		return nil, err
	}
	return Parse(path, data, overrides...)
}

// DataSource returns the index of the datasource named name, or -1.
func (f *File) DataSource(name string) int {
	for i := range f.DataSources {
		if f.DataSources[i].Name == name {
			return i
		}
	}
	return -1
}

// GAM returns the index of the GAM named name, or -1.
func (f *File) GAM(name string) int {
	for i := range f.GAMs {
		if f.GAMs[i].Name == name {
			return i
		}
	}
	return -1
}
