package record

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/streamerd/streamerd/datasource"
	flatwire "github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/cli"
	"github.com/streamerd/streamerd/quant"
)

// Format names the stream a recording holds, as its metadata spells it.
type Format string

// The three formats.
const (
	UDPStreamer Format = "udpstreamer"
	RD100S      Format = "rd100s"
	FlatUDP     Format = "flatudp"
)

// SchemaVersion is the value of MetaVersion in the files this package writes.
const SchemaVersion = "1"

// Key/value metadata of a recording (docs/recording.md).
const (
	MetaVersion   = "streamerd.recording" // SchemaVersion
	MetaFormat    = "streamerd.format"    // a Format
	MetaSource    = "streamerd.source"    // the address recorded from
	MetaConfig    = "streamerd.config"    // base64 of the UDPStreamer CONFIG payload a replay serves
	MetaSignals   = "streamerd.signals"   // JSON: the signals, their types, units, ranges and columns
	MetaFlat      = "streamerd.flatudp.signals"
	MetaOrder     = "streamerd.flatudp.byte_order"
	MetaStarted   = "streamerd.started"    // RFC 3339 time the file was opened
	MetaFileIndex = "streamerd.file_index" // 0 for the first file of a recording, then 1, 2 … after each rotation
	MetaRepaired  = "streamerd.repaired"   // set by Repair: what it kept
)

// MaxColumns bounds the columns of a recording (signal elements, codes and
// the bookkeeping columns): a CONFIG with more is refused.
const MaxColumns = 1 << 16

// Names of the bookkeeping columns, before the signals.
const (
	ColTime       = "_time"       // receive time, TIMESTAMP(NANOS) UTC
	ColCounter    = "_counter"    // UDPStreamer DATA counter, RD100S seq
	ColHRT        = "_hrt_ns"     // UDPStreamer hrtTimestamp: ns of the server's CLOCK_MONOTONIC_RAW
	ColTUs        = "_t_us"       // RD100S t_us
	ColLost       = "_lost"       // updates lost just before this row
	ColSkipped    = "_skipped"    // server cycles skipped just before this row (UDPStreamer)
	ColStale      = "_stale"      // stale or duplicated updates dropped since the previous row
	ColIncomplete = "_incomplete" // updates never completed since the previous row (UDPStreamer)
)

// kind is what a column holds.
type kind uint8

const (
	kTime kind = iota
	kCounter
	kHRT
	kTUs
	kLost
	kSkipped
	kStale
	kIncomplete
	kValue // an element of a signal
	kCode  // the quantisation code of an element
)

// Column is one column of a recording.
type Column struct {
	Name    string
	Type    datasource.Type // element type stored; Int64 for _time (a timestamp)
	Signal  int             // for a signal column, its index in Layout.Signals; -1 otherwise
	Element int             // for a signal column, the element index in wire order
	kind    kind
}

// Layout maps the updates of one stream to the columns of a recording, and
// holds the signal list a replay serves (in UDPStreamer CONFIG terms). It is
// read-only once built.
type Layout struct {
	Format   Format
	Source   string
	Signals  []datasource.Signal // as a replay serves them
	Declared []datasource.Type   // per signal, the type as the stream declares it (char8 for FlatUDP text)
	Columns  []Column

	wireTypes []datasource.Type // per signal, its type on the wire (quantised)
	first     []int             // per signal, its first value column
	codes     []int             // per signal, its first code column, -1 without
	meta      []kv              // the format's own metadata (CONFIG, signals string)
	flat      *flatwire.Layout
	order     flatwire.ByteOrder
}

type kv struct{ k, v string }

// same reports whether l and o lay a recording out alike: the same
// format, source, signals, columns and metadata.
func (l *Layout) same(o *Layout) bool {
	return l.Format == o.Format && l.Source == o.Source && slices.Equal(l.Signals, o.Signals) &&
		slices.Equal(l.Declared, o.Declared) && slices.Equal(l.Columns, o.Columns) && slices.Equal(l.meta, o.meta)
}

// ForUDPStreamer returns the layout of a UDPStreamer session whose CONFIG
// lists sigs; codes adds, for each quantised signal, a column per element
// with its wire code.
func ForUDPStreamer(source string, sigs []datasource.Signal, codes bool) (*Layout, error) {
	config, err := udpstreamer.AppendConfig(nil, sigs)
	if err != nil {
		return nil, err
	}
	return forConfig(source, config, codes)
}

// forConfig returns the layout of a UDPStreamer session whose CONFIG
// message is config.
func forConfig(source string, config []byte, codes bool) (*Layout, error) {
	cfg, err := client.ParseConfig(config)
	if err != nil {
		return nil, err
	}
	sigs := cfg.Signals
	l := &Layout{Format: UDPStreamer, Source: source, Signals: sigs}
	for i := range sigs {
		l.wireTypes = append(l.wireTypes, cfg.WireType(i))
	}
	l.meta = append(l.meta, kv{MetaConfig, base64.StdEncoding.EncodeToString(config)})
	l.addMeta(kTime, kCounter, kHRT, kLost, kSkipped, kStale, kIncomplete)
	for i := range sigs {
		l.Declared = append(l.Declared, sigs[i].Type)
	}
	return l, l.addSignals(codes)
}

// rd100sSignals are the signals of an RD100S-ENC-UDP packet, as recorded
// and replayed: the wire's integers with their units.
var rd100sSignals = []datasource.Signal{
	{Name: "az", Type: datasource.Int32, Unit: "mdeg"},
	{Name: "el", Type: datasource.Int32, Unit: "mdeg"},
	{Name: "az_rate", Type: datasource.Int32, Unit: "mdeg/s"},
	{Name: "el_rate", Type: datasource.Int32, Unit: "mdeg/s"},
	{Name: "status", Type: datasource.Uint16},
}

// ForRD100S returns the layout of an RD100S-ENC-UDP stream.
func ForRD100S(source string) *Layout {
	l := &Layout{Format: RD100S, Source: source}
	for _, s := range rd100sSignals {
		l.Signals = append(l.Signals, s)
		l.Declared = append(l.Declared, s.Type)
	}
	l.addMeta(kTime, kCounter, kTUs, kLost, kStale)
	if err := l.addSignals(false); err != nil {
		panic(err) // a fixed list that fits
	}
	l.addConfig()
	return l
}

// ForFlatUDP returns the layout of FlatUDP datagrams described by a
// signals string in byte order order ("little" or "big"). A char8 row is
// recorded and replayed as uint8 elements.
func ForFlatUDP(source, signals, order string) (*Layout, error) {
	fl, err := flatwire.ParseLayout(signals)
	if err != nil {
		return nil, err
	}
	bo, err := cli.ParseByteOrder(order)
	if err != nil {
		return nil, err
	}
	l := &Layout{Format: FlatUDP, Source: source, flat: fl, order: bo}
	for _, s := range fl.Signals {
		t := s.Type
		if t == datasource.Char8 {
			t = datasource.Uint8
		}
		si := datasource.Signal{Name: s.Name, Type: t}
		if s.Count > 1 {
			si.NumberOfDimensions, si.NumberOfElements = 1, s.Count
		}
		l.Signals = append(l.Signals, si)
		l.Declared = append(l.Declared, s.Type)
	}
	l.meta = append(l.meta, kv{MetaFlat, flatwire.FormatSignals(fl.Signals)}, kv{MetaOrder, bo.String()})
	l.addMeta(kTime)
	if err := l.addSignals(false); err != nil {
		return nil, err
	}
	l.addConfig()
	return l, nil
}

// addConfig stores the CONFIG a replay serves, when the signals make one
// (a FlatUDP name longer than a CONFIG holds does not).
func (l *Layout) addConfig() {
	if config, err := udpstreamer.AppendConfig(nil, l.Signals); err == nil {
		l.meta = append(l.meta, kv{MetaConfig, base64.StdEncoding.EncodeToString(config)})
	}
}

var metaNames = [...]string{kTime: ColTime, kCounter: ColCounter, kHRT: ColHRT, kTUs: ColTUs,
	kLost: ColLost, kSkipped: ColSkipped, kStale: ColStale, kIncomplete: ColIncomplete}

var metaTypes = [...]datasource.Type{kTime: datasource.Int64, kCounter: datasource.Uint32, kHRT: datasource.Uint64, kTUs: datasource.Uint64,
	kLost: datasource.Uint32, kSkipped: datasource.Uint32, kStale: datasource.Uint32, kIncomplete: datasource.Uint32}

func (l *Layout) addMeta(kinds ...kind) {
	for _, k := range kinds {
		l.Columns = append(l.Columns, Column{Name: metaNames[k], Type: metaTypes[k], Signal: -1, kind: k})
	}
}

// ElementName is the column name of element k of a signal of n elements:
// the signal's name for a scalar, name[k] otherwise.
func ElementName(name string, k, n int) string {
	if n == 1 {
		return name
	}
	return name + "[" + strconv.Itoa(k) + "]"
}

// codeSuffix follows a value column's name in its code column's.
const codeSuffix = ":code"

// addSignals adds the value columns, then the code columns, checking the
// total and that no two columns share a name.
func (l *Layout) addSignals(codes bool) error {
	total := len(l.Columns)
	for i := range l.Signals {
		n := l.Signals[i].Elements()
		total += n
		if codes && l.Signals[i].QuantizedType != quant.None {
			total += n
		}
		if total > MaxColumns {
			return fmt.Errorf("record: the signals up to %q make more than %d columns, the most a recording holds", l.Signals[i].Name, MaxColumns)
		}
	}
	l.first, l.codes = make([]int, len(l.Signals)), make([]int, len(l.Signals))
	for i := range l.Signals {
		s := &l.Signals[i]
		l.first[i] = len(l.Columns)
		for k, n := 0, s.Elements(); k < n; k++ {
			l.Columns = append(l.Columns, Column{Name: ElementName(s.Name, k, n), Type: s.Type, Signal: i, Element: k, kind: kValue})
		}
	}
	for i := range l.Signals {
		s := &l.Signals[i]
		l.codes[i] = -1
		if !codes || s.QuantizedType == quant.None {
			continue
		}
		l.codes[i] = len(l.Columns)
		for k, n := 0, s.Elements(); k < n; k++ {
			l.Columns = append(l.Columns, Column{Name: ElementName(s.Name, k, n) + codeSuffix, Type: l.wireTypes[i], Signal: i, Element: k, kind: kCode})
		}
	}
	seen := make(map[string]int, len(l.Columns))
	for i, c := range l.Columns {
		if j, dup := seen[c.Name]; dup {
			return fmt.Errorf("record: columns %d and %d would both be called %q: rename a signal", j, i, c.Name)
		}
		seen[c.Name] = i
	}
	return nil
}

// Column returns the index of the column called name, or -1.
func (l *Layout) Column(name string) int {
	for i := range l.Columns {
		if l.Columns[i].Name == name {
			return i
		}
	}
	return -1
}

// FirstColumn returns the index of the first value column of signal i;
// its elements follow in order.
func (l *Layout) FirstColumn(i int) int { return l.first[i] }

// CodeColumn returns the index of the first code column of signal i, or
// -1 when the recording has none for it.
func (l *Layout) CodeColumn(i int) int { return l.codes[i] }

// signalJSON is one signal in MetaSignals.
type signalJSON struct {
	Name          string   `json:"name"`
	Type          string   `json:"type"`
	Unit          string   `json:"unit"`
	Shape         string   `json:"shape"`
	Elements      int      `json:"elements"`
	Rows          int      `json:"rows"`
	Cols          int      `json:"cols"`
	QuantizedType string   `json:"quantized_type"`
	RangeMin      *float64 `json:"range_min,omitempty"` // when finite
	RangeMax      *float64 `json:"range_max,omitempty"`
	TimeMode      string   `json:"time_mode"`
	TimeSignal    string   `json:"time_signal,omitempty"`
	SamplingRate  float64  `json:"sampling_rate"`
	Columns       []string `json:"columns"`
	CodeColumns   []string `json:"code_columns,omitempty"`
}

// signalsJSON returns MetaSignals.
func (l *Layout) signalsJSON() string {
	out := make([]signalJSON, len(l.Signals))
	for i := range l.Signals {
		s := &l.Signals[i]
		j := signalJSON{Name: s.Name, Type: l.Declared[i].String(), Unit: s.Unit, Shape: cli.Shape(s), Elements: s.Elements(),
			QuantizedType: s.QuantizedType.String(), RangeMin: finite(s.RangeMin), RangeMax: finite(s.RangeMax),
			TimeMode: s.TimeMode.String(), TimeSignal: s.TimeSignal, SamplingRate: s.SamplingRate}
		j.Rows, j.Cols = cli.Dims(s)
		for k := range s.Elements() {
			j.Columns = append(j.Columns, l.Columns[l.first[i]+k].Name)
			if l.codes[i] >= 0 {
				j.CodeColumns = append(j.CodeColumns, l.Columns[l.codes[i]+k].Name)
			}
		}
		out[i] = j
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic(err) // plain strings and finite numbers
	}
	return string(b)
}

// finite returns &v, or nil for NaN and the infinities (JSON has no
// spelling for them).
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// metadata returns the key/value metadata of a file of the layout, beside
// the per-file keys.
func (l *Layout) metadata() []kv {
	m := []kv{{MetaVersion, SchemaVersion}, {MetaFormat, string(l.Format)}, {MetaSource, l.Source}}
	m = append(m, l.meta...)
	return append(m, kv{MetaSignals, l.signalsJSON()})
}

// ErrNotRecording is wrapped by Open's error for a Parquet file that is
// not a recording of this package.
var ErrNotRecording = errors.New("not a streamerd recording")
