package frame

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/internal/rules"
	"github.com/streamerd/streamerd/quant"
)

// NoTimeSignal is the timeSignalIdx of a PacketTime signal.
const NoTimeSignal uint32 = 0xFFFFFFFF

// CONFIG layout: a uint32 signal count, then one fixed-size record per signal.
const (
	configCountSize  = 4
	configRecordSize = 136
	maxNameLen       = 63 // bytes of a name, without its terminating NUL
	maxUnitLen       = 31 // bytes of a unit, without its terminating NUL
)

// Offsets inside one CONFIG record.
const (
	recName          = 0
	recNameSize      = 64
	recType          = 64
	recQuant         = 65
	recNumDimensions = 66
	recNumRows       = 67
	recNumCols       = 71
	recRangeMin      = 75
	recRangeMax      = 83
	recTimeMode      = 91
	recSamplingRate  = 92
	recTimeSignalIdx = 100
	recUnit          = 104
	recUnitSize      = 32
)

// ErrConfig is wrapped by every error of SignalErrors, AppendConfig and ParseConfig.
var ErrConfig = errors.New("udpstreamer: invalid CONFIG")

// SignalInfo describes one signal as carried in a CONFIG record: a
// datasource.Signal as the protocol writes it (Records, Signals).
type SignalInfo struct {
	Name          string // 1 to 63 bytes, no NUL
	Type          datasource.Type
	Quant         quant.WireType // quant.None unless Type is float32/float64
	NumDimensions uint8          // 0 scalar (rows=cols=1), 1 vector (rows=1), 2 matrix
	NumRows       uint32
	NumCols       uint32
	RangeMin      float64 // quantisation range; finite with RangeMin < RangeMax when quantised
	RangeMax      float64
	TimeMode      datasource.TimeMode
	SamplingRate  float64 // Hz; > 0 for FirstSample and LastSample
	TimeSignalIdx uint32  // index in CONFIG order of the time signal; NoTimeSignal for PacketTime
	Unit          string  // 0 to 31 bytes, no NUL
}

// Elements is the element count, NumRows*NumCols. Meaningful only for a signal
// that AppendConfig accepts or that came from ParseConfig.
func (s *SignalInfo) Elements() int { return int(s.NumRows) * int(s.NumCols) }

// WireBytes is the size in bytes of the signal's slot in the DATA payload:
// Elements times the wire element size (the quantised size when quantised).
func (s *SignalInfo) WireBytes() int { return s.Elements() * s.WireType().Size() }

// WireType is the type of one element in the DATA payload: Type, or the
// integer type Quant names when the signal is quantised.
func (s *SignalInfo) WireType() datasource.Type { return quantized(s.Type, s.Quant) }

// quantized returns the type of one element on the wire for a signal of
// type t quantised to q: t itself for quant.None (and for an invalid q),
// else the integer type q names.
func quantized(t datasource.Type, q quant.WireType) datasource.Type {
	if q == quant.None || int(q) >= len(quantTypes) {
		return t
	}
	return quantTypes[q]
}

// quantTypes are the integer types the quantisation codes name.
var quantTypes = [...]datasource.Type{quant.Uint8: datasource.Uint8, quant.Int8: datasource.Int8,
	quant.Uint16: datasource.Uint16, quant.Int16: datasource.Int16}

// signalError is a CONFIG record that breaks a rule of the protocol. Field
// names the rule's parameter as a datasource configuration spells it (Name,
// Unit, Type, QuantizedType, RangeMin, RangeMax, NumberOfDimensions,
// NumberOfElements, TimeMode, TimeSignal, SamplingRate), so a producer can
// report it at its key. It wraps ErrConfig.
type signalError struct {
	Index int    // in CONFIG order
	Name  string // the signal's name
	Field string
	Rule  string
}

func (e *signalError) Error() string {
	return fmt.Sprintf("%v: signal %d (%q): %s: %s", ErrConfig, e.Index, e.Name, e.Field, e.Rule)
}

// Unwrap returns ErrConfig.
func (e *signalError) Unwrap() error { return ErrConfig }

// validateSignals checks a signal set against the protocol's rules (see
// SignalErrors) and returns the first broken one, or nil.
func validateSignals(sigs []SignalInfo) error {
	if len(sigs) == 0 {
		return fmt.Errorf("%w: no signals", ErrConfig)
	}
	if uint64(len(sigs)) > math.MaxUint32 {
		return fmt.Errorf("%w: too many signals", ErrConfig)
	}
	if errs := signalErrors(sigs); len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// SignalErrors returns every broken rule of the signals of a set, as
// ConfigErrors a producer's Validate completes with its name: Index is
// the signal's, Parameter the rule's parameter as a datasource
// configuration spells it (Name, Unit, Type, QuantizedType, RangeMin,
// RangeMax, NumberOfDimensions, NumberOfElements, TimeMode, TimeSignal,
// SamplingRate). The rules: names and units fit their NUL-terminated
// fields, names are non-empty and unique, codes are defined, dimensions
// follow the scalar/vector/matrix rules, quantisation is on float signals
// with a finite increasing range, time signals exist and have the right
// element count, and the DATA payload fits in one update. It allocates
// only for broken rules.
func SignalErrors(sigs []SignalInfo) []*datasource.ConfigError {
	var out []*datasource.ConfigError
	for _, e := range signalErrors(sigs) {
		out = append(out, &datasource.ConfigError{Signal: e.Name, Index: e.Index, Parameter: e.Field, Rule: e.Rule})
	}
	return out
}

// signalErrors returns every broken rule of the signals of a set, in CONFIG
// order: names and units fit their NUL-terminated fields, names are
// non-empty and unique, codes are defined, dimensions follow the
// scalar/vector/matrix rules, quantisation is on float signals with a
// finite increasing range, time signals exist and have the right element
// count, and the DATA payload fits in one update. It allocates only for
// broken rules.
func signalErrors(sigs []SignalInfo) []*signalError {
	c := checker{sigs: sigs}
	total := uint64(DataTimestampSize)
	for i := range sigs {
		c.i = i
		c.strings()
		if c.codes() && c.shape() {
			total += uint64(sigs[i].WireBytes())
			if total > maxUpdateInt {
				c.bad("NumberOfElements", "the signals up to this one exceed one update")
			}
		}
		c.timing()
	}
	return c.errs
}

// checker collects the broken rules of signal i of sigs.
type checker struct {
	sigs  []SignalInfo
	i     int
	names map[string]int
	errs  []*signalError
}

func (c *checker) bad(field, format string, args ...any) {
	c.errs = append(c.errs, &signalError{Index: c.i, Name: c.sigs[c.i].Name, Field: field, Rule: fmt.Sprintf(format, args...)})
}

// strings checks the name and the unit: present, unique, and fitting their
// NUL-terminated fields.
func (c *checker) strings() {
	s := &c.sigs[c.i]
	switch j, dup := c.names[s.Name]; {
	case s.Name == "":
		c.bad("Name", "must not be empty")
	case len(s.Name) > maxNameLen:
		c.bad("Name", "at most %d bytes (the CONFIG field is NUL-terminated), got %d", maxNameLen, len(s.Name))
	case strings.IndexByte(s.Name, 0) >= 0:
		c.bad("Name", "must not contain a NUL byte")
	case dup:
		c.bad("Name", "duplicates signal #%d; names must be unique", j)
	default:
		if c.names == nil {
			c.names = make(map[string]int, len(c.sigs))
		}
		c.names[s.Name] = c.i
	}
	switch {
	case len(s.Unit) > maxUnitLen:
		c.bad("Unit", "at most %d bytes (the CONFIG field is NUL-terminated), got %d", maxUnitLen, len(s.Unit))
	case strings.IndexByte(s.Unit, 0) >= 0:
		c.bad("Unit", "must not contain a NUL byte")
	}
}

// codes checks the type and quantisation codes and the range of a
// quantised signal; it reports whether the codes are defined.
func (c *checker) codes() bool {
	s := &c.sigs[c.i]
	switch {
	case s.Type == datasource.Char8:
		c.bad("Type", "char8 has no UDPStreamer type code (0..9 are uint8..float64); send text with FlatUDP, or its bytes as uint8")
		return false
	case !s.Type.Valid():
		c.bad("Type", "invalid type %d", s.Type)
		return false
	case !s.Quant.Valid():
		c.bad("QuantizedType", "invalid quantisation code %d", s.Quant)
		return false
	case s.Quant == quant.None:
	case !s.Type.IsFloat():
		c.bad("QuantizedType", "quantisation needs a float32 or float64 signal, got %v", s.Type)
	case !finite(s.RangeMin):
		c.bad("RangeMin", "quantisation needs a finite RangeMin, got %v", s.RangeMin)
	case !finite(s.RangeMax) || !(s.RangeMin < s.RangeMax):
		c.bad("RangeMax", "quantisation needs a finite RangeMax > RangeMin, got RangeMin %v and RangeMax %v", s.RangeMin, s.RangeMax)
	}
	return true
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// shape checks the dimensions against rows and columns, and that the
// signal alone fits in one update; it reports whether all hold.
func (c *checker) shape() bool {
	s := &c.sigs[c.i]
	rows, cols := s.NumRows, s.NumCols
	switch {
	case s.NumDimensions > 2:
		c.bad("NumberOfDimensions", "must be 0, 1 or 2, got %d", s.NumDimensions)
	case s.NumDimensions == 0 && (rows != 1 || cols != 1):
		c.bad("NumberOfDimensions", "a scalar has 1 row and 1 column, got %d×%d", rows, cols)
	case s.NumDimensions == 1 && (rows != 1 || cols == 0):
		c.bad("NumberOfDimensions", "a vector has 1 row and at least 1 column, got %d×%d", rows, cols)
	case rows == 0 || cols == 0:
		c.bad("NumberOfDimensions", "a matrix has at least 1 row and 1 column, got %d×%d", rows, cols)
	default:
		if hi, n := bits.Mul64(uint64(rows)*uint64(cols), uint64(s.WireType().Size())); hi != 0 || n > maxUpdateInt {
			c.bad("NumberOfElements", "%d×%d elements do not fit in one update", rows, cols)
			return false
		}
		return true
	}
	return false
}

// timing checks the time mode, the sampling rate and the time signal.
func (c *checker) timing() {
	s := &c.sigs[c.i]
	if !finite(s.SamplingRate) || s.SamplingRate < 0 {
		c.bad("SamplingRate", "must be a finite number ≥ 0 Hz, got %v", s.SamplingRate)
	}
	switch {
	case s.TimeMode > datasource.LastSample:
		c.bad("TimeMode", "invalid time mode %d", s.TimeMode)
		return
	case s.TimeMode == datasource.PacketTime:
		if s.TimeSignalIdx != NoTimeSignal {
			c.bad("TimeSignal", "is set (index %d) but TimeMode is PacketTime", s.TimeSignalIdx)
		}
		return
	case uint64(s.TimeSignalIdx) >= uint64(len(c.sigs)):
		c.bad("TimeSignal", "index %d names no signal", s.TimeSignalIdx)
		return
	case int(s.TimeSignalIdx) == c.i:
		c.bad("TimeSignal", "a signal cannot be its own time signal")
		return
	}
	t := &c.sigs[s.TimeSignalIdx]
	n, tn := uint64(s.NumRows)*uint64(s.NumCols), uint64(t.NumRows)*uint64(t.NumCols)
	switch s.TimeMode {
	case datasource.FullArray:
		if tn != n {
			c.bad("TimeSignal", "FullArray needs a time signal with the same NumberOfElements (%d); %q has %d", n, t.Name, tn)
		}
	case datasource.FirstSample, datasource.LastSample:
		if tn != 1 {
			c.bad("TimeSignal", "%v needs a scalar time signal; %q has %d elements", s.TimeMode, t.Name, tn)
		}
		if !(s.SamplingRate > 0) {
			c.bad("SamplingRate", "%v needs SamplingRate > 0 Hz, got %v", s.TimeMode, s.SamplingRate)
		}
	}
}

// ConfigSize is the size in bytes of the CONFIG payload for n signals.
func ConfigSize(n int) int { return configCountSize + configRecordSize*n }

// AppendConfig checks sigs against the protocol's rules and appends the CONFIG payload
// (4 + 136*len(sigs) bytes) to b. On error b is returned unchanged.
func AppendConfig(b []byte, sigs []SignalInfo) ([]byte, error) {
	if err := validateSignals(sigs); err != nil {
		return b, err
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(sigs)))
	for i := range sigs {
		b = appendRecord(b, &sigs[i])
	}
	return b, nil
}

func appendRecord(b []byte, s *SignalInfo) []byte {
	start := len(b)
	b = append(b, make([]byte, configRecordSize)...)
	r := b[start:]
	copy(r[recName:recName+recNameSize], s.Name)
	r[recType] = byte(s.Type)
	r[recQuant] = byte(s.Quant)
	r[recNumDimensions] = s.NumDimensions
	binary.LittleEndian.PutUint32(r[recNumRows:], s.NumRows)
	binary.LittleEndian.PutUint32(r[recNumCols:], s.NumCols)
	binary.LittleEndian.PutUint64(r[recRangeMin:], math.Float64bits(s.RangeMin))
	binary.LittleEndian.PutUint64(r[recRangeMax:], math.Float64bits(s.RangeMax))
	r[recTimeMode] = byte(s.TimeMode)
	binary.LittleEndian.PutUint64(r[recSamplingRate:], math.Float64bits(s.SamplingRate))
	binary.LittleEndian.PutUint32(r[recTimeSignalIdx:], s.TimeSignalIdx)
	copy(r[recUnit:recUnit+recUnitSize], s.Unit)
	return b
}

// ParseConfig decodes a reassembled CONFIG payload. The payload must be exactly
// 4 + 136*numSignals bytes, every string NUL-terminated inside its field, and the
// result must pass the same rules; anything else is an error wrapping ErrConfig.
// Bytes after a string's NUL are ignored. It allocates the result.
func ParseConfig(b []byte) ([]SignalInfo, error) {
	if len(b) < configCountSize {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the signal count", ErrConfig, len(b))
	}
	n := uint64(binary.LittleEndian.Uint32(b))
	if n == 0 {
		return nil, fmt.Errorf("%w: no signals", ErrConfig)
	}
	if uint64(len(b)-configCountSize) != n*configRecordSize {
		return nil, fmt.Errorf("%w: %d bytes for %d signals, want %d", ErrConfig, len(b), n, configCountSize+n*configRecordSize)
	}
	sigs := make([]SignalInfo, n)
	for i := range sigs {
		r := b[configCountSize+i*configRecordSize:][:configRecordSize]
		s := &sigs[i]
		name, ok := cString(r[recName : recName+recNameSize])
		if !ok {
			return nil, fmt.Errorf("%w: signal %d: name not NUL-terminated", ErrConfig, i)
		}
		unit, ok := cString(r[recUnit : recUnit+recUnitSize])
		if !ok {
			return nil, fmt.Errorf("%w: signal %d: unit not NUL-terminated", ErrConfig, i)
		}
		*s = SignalInfo{
			Name:          name,
			Type:          datasource.Type(r[recType]),
			Quant:         quant.WireType(r[recQuant]),
			NumDimensions: r[recNumDimensions],
			NumRows:       binary.LittleEndian.Uint32(r[recNumRows:]),
			NumCols:       binary.LittleEndian.Uint32(r[recNumCols:]),
			RangeMin:      math.Float64frombits(binary.LittleEndian.Uint64(r[recRangeMin:])),
			RangeMax:      math.Float64frombits(binary.LittleEndian.Uint64(r[recRangeMax:])),
			TimeMode:      datasource.TimeMode(r[recTimeMode]),
			SamplingRate:  math.Float64frombits(binary.LittleEndian.Uint64(r[recSamplingRate:])),
			TimeSignalIdx: binary.LittleEndian.Uint32(r[recTimeSignalIdx:]),
			Unit:          unit,
		}
	}
	if err := validateSignals(sigs); err != nil {
		return nil, err
	}
	return sigs, nil
}

// Records converts signals to their CONFIG records. A record's shape is
// 1×1 for a scalar, 1×N for a 1-D array, Rows×Cols for a matrix; its time
// signal is the index of the signal TimeSignal names (an index beyond the
// signals when none has that name, which AppendConfig refuses).
func Records(sigs []datasource.Signal) []SignalInfo {
	infos := make([]SignalInfo, len(sigs))
	index := rules.Names(sigs)
	for i := range sigs {
		s := &sigs[i]
		rows, cols := 1, s.Elements()
		switch s.NumberOfDimensions {
		case 0:
			cols = 1
		case 2:
			rows, cols = s.Rows, s.Cols
		}
		info := SignalInfo{
			Name:          s.Name,
			Type:          s.Type,
			Quant:         s.QuantizedType,
			NumDimensions: uint8(s.NumberOfDimensions),
			NumRows:       uint32(rows),
			NumCols:       uint32(cols),
			TimeMode:      s.TimeMode,
			SamplingRate:  s.SamplingRate,
			RangeMin:      s.RangeMin,
			RangeMax:      s.RangeMax,
			TimeSignalIdx: NoTimeSignal,
			Unit:          s.Unit,
		}
		if s.TimeSignal != "" {
			info.TimeSignalIdx = uint32(len(sigs))
			if j, ok := index[s.TimeSignal]; ok {
				info.TimeSignalIdx = uint32(j)
			}
		}
		infos[i] = info
	}
	return infos
}

// Signals converts valid CONFIG records (ParseConfig's) to the signals
// they describe, Records' inverse.
func Signals(infos []SignalInfo) []datasource.Signal {
	sigs := make([]datasource.Signal, len(infos))
	for i := range infos {
		in := &infos[i]
		s := datasource.Signal{Name: in.Name, Type: in.Type, NumberOfDimensions: int(in.NumDimensions), Unit: in.Unit,
			RangeMin: in.RangeMin, RangeMax: in.RangeMax, QuantizedType: in.Quant, TimeMode: in.TimeMode, SamplingRate: in.SamplingRate}
		switch in.NumDimensions {
		case 1:
			s.NumberOfElements = int(in.NumCols)
		case 2:
			s.Rows, s.Cols, s.NumberOfElements = int(in.NumRows), int(in.NumCols), in.Elements()
		}
		if in.TimeMode != datasource.PacketTime && int(in.TimeSignalIdx) < len(infos) {
			s.TimeSignal = infos[in.TimeSignalIdx].Name
		}
		sigs[i] = s
	}
	return sigs
}

// cString returns the bytes of f before its first NUL; ok is false without a NUL.
func cString(f []byte) (s string, ok bool) {
	i := bytes.IndexByte(f, 0)
	if i < 0 {
		return "", false
	}
	return string(f[:i]), true
}
