package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/quant"
)

// NoTimeSignal is the timeSignalIdx of a PacketTime signal.
const NoTimeSignal uint32 = 0xFFFFFFFF

// CONFIG layout: a uint32 signal count, then one fixed-size record per signal.
const (
	ConfigCountSize  = 4
	ConfigRecordSize = 136
	MaxNameLen       = 63 // bytes of a name, without its terminating NUL
	MaxUnitLen       = 31 // bytes of a unit, without its terminating NUL
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

// maxUpdatePayload is the largest payload one update can carry: 65535 fragments of
// the largest chunk. Larger signal sets are rejected by ValidateSignals (as are
// sets over math.MaxInt bytes on 32-bit platforms).
const maxUpdatePayload = maxFragments * (MaxMaxPayloadSize - HeaderSize)

// maxUpdateInt also keeps sizes representable as int on 32-bit platforms.
const maxUpdateInt = min(maxUpdatePayload, math.MaxInt)

// ErrConfig is wrapped by every error of ValidateSignals, AppendConfig and ParseConfig.
var ErrConfig = errors.New("udpstreamer/wire: invalid CONFIG")

// SignalInfo describes one signal as carried in a CONFIG record.
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
// that passed ValidateSignals or came from ParseConfig.
func (s *SignalInfo) Elements() int { return int(s.NumRows) * int(s.NumCols) }

// WireBytes is the size in bytes of the signal's slot in the DATA payload:
// Elements times the wire element size (the quantised size when quantised).
func (s *SignalInfo) WireBytes() int { return s.Elements() * s.WireType().Size() }

// WireType is the type of one element in the DATA payload: Type, or the
// integer type Quant names when the signal is quantised.
func (s *SignalInfo) WireType() datasource.Type { return s.Type.Quantized(s.Quant) }

func sigErr(i int, s *SignalInfo, format string, args ...any) error {
	return fmt.Errorf("%w: signal %d (%q): %s", ErrConfig, i, s.Name, fmt.Sprintf(format, args...))
}

// ValidateSignals checks a signal set against the protocol's rules: names and
// units fit and are NUL-free, names are non-empty and unique, codes are defined,
// dimensions follow the scalar/vector/matrix rules with a non-zero element count,
// quantisation is on float signals with a finite increasing range, time signals
// exist and have the right element count, and the DATA payload fits in one update.
func ValidateSignals(sigs []SignalInfo) error {
	if len(sigs) == 0 {
		return fmt.Errorf("%w: no signals", ErrConfig)
	}
	if uint64(len(sigs)) > math.MaxUint32 {
		return fmt.Errorf("%w: too many signals", ErrConfig)
	}
	names := make(map[string]struct{}, len(sigs))
	total := uint64(DataTimestampSize)
	for i := range sigs {
		s := &sigs[i]
		if _, dup := names[s.Name]; dup {
			return sigErr(i, s, "duplicate name")
		}
		names[s.Name] = struct{}{}
		for _, check := range []func(*SignalInfo) string{checkStrings, checkCodes, checkShape} {
			if rule := check(s); rule != "" {
				return sigErr(i, s, "%s", rule)
			}
		}
		total += uint64(s.WireBytes())
		if total > maxUpdateInt {
			return sigErr(i, s, "signals too large for one update")
		}
		if rule := checkTiming(sigs, i); rule != "" {
			return sigErr(i, s, "%s", rule)
		}
	}
	return nil
}

// checkStrings checks the name and the unit of one CONFIG record: they fit
// their NUL-terminated fields.
func checkStrings(s *SignalInfo) string {
	switch {
	case s.Name == "":
		return "empty name"
	case len(s.Name) > MaxNameLen:
		return fmt.Sprintf("name longer than %d bytes", MaxNameLen)
	case len(s.Unit) > MaxUnitLen:
		return fmt.Sprintf("unit longer than %d bytes", MaxUnitLen)
	case strings.IndexByte(s.Name, 0) >= 0 || strings.IndexByte(s.Unit, 0) >= 0:
		return "NUL byte in name or unit"
	}
	return ""
}

// checkCodes checks the type and quantisation codes, and the range of a
// quantised signal.
func checkCodes(s *SignalInfo) string {
	switch {
	case !s.Type.Valid():
		return fmt.Sprintf("unknown type code %d", s.Type)
	case !s.Quant.Valid():
		return fmt.Sprintf("unknown quantisation code %d", s.Quant)
	case s.Quant == quant.None:
		return ""
	case !s.Type.IsFloat():
		return fmt.Sprintf("quantisation on %v", s.Type)
	case math.IsNaN(s.RangeMin) || math.IsInf(s.RangeMin, 0) || math.IsNaN(s.RangeMax) || math.IsInf(s.RangeMax, 0) || !(s.RangeMin < s.RangeMax):
		return "quantisation needs finite RangeMin < RangeMax"
	}
	return ""
}

// checkShape checks the dimensions against rows and columns, and that the
// signal alone fits in one update.
func checkShape(s *SignalInfo) string {
	switch s.NumDimensions {
	case 0:
		if s.NumRows != 1 || s.NumCols != 1 {
			return "scalar must have rows=1 cols=1"
		}
	case 1:
		if s.NumRows != 1 || s.NumCols == 0 {
			return "vector must have rows=1 cols>0"
		}
	case 2:
		if s.NumRows == 0 || s.NumCols == 0 {
			return "matrix must have rows>0 cols>0"
		}
	default:
		return fmt.Sprintf("numDimensions %d", s.NumDimensions)
	}
	if hi, n := bits.Mul64(uint64(s.NumRows)*uint64(s.NumCols), uint64(s.WireType().Size())); hi != 0 || n > maxUpdateInt {
		return "too large for one update"
	}
	return ""
}

// checkTiming checks the time mode, the sampling rate and the time signal
// of signal i.
func checkTiming(sigs []SignalInfo, i int) string {
	s := &sigs[i]
	switch {
	case !s.TimeMode.Valid():
		return fmt.Sprintf("unknown time mode %d", s.TimeMode)
	case math.IsNaN(s.SamplingRate) || math.IsInf(s.SamplingRate, 0) || s.SamplingRate < 0:
		return fmt.Sprintf("sampling rate %v", s.SamplingRate)
	case !s.TimeMode.NeedsTimeSignal():
		if s.TimeSignalIdx != NoTimeSignal {
			return fmt.Sprintf("PacketTime with time signal index %d", s.TimeSignalIdx)
		}
		return ""
	case uint64(s.TimeSignalIdx) >= uint64(len(sigs)) || int(s.TimeSignalIdx) == i:
		return fmt.Sprintf("time signal index %d out of range", s.TimeSignalIdx)
	}
	t := &sigs[s.TimeSignalIdx]
	switch s.TimeMode {
	case datasource.FullArray:
		if uint64(t.NumRows)*uint64(t.NumCols) != uint64(s.NumRows)*uint64(s.NumCols) {
			return fmt.Sprintf("FullArray time signal %q has a different element count", t.Name)
		}
	case datasource.FirstSample, datasource.LastSample:
		if t.NumRows != 1 || t.NumCols != 1 {
			return fmt.Sprintf("%v time signal %q is not scalar", s.TimeMode, t.Name)
		}
		if !(s.SamplingRate > 0) {
			return fmt.Sprintf("%v needs SamplingRate > 0", s.TimeMode)
		}
	}
	return ""
}

// ConfigSize is the size in bytes of the CONFIG payload for n signals.
func ConfigSize(n int) int { return ConfigCountSize + ConfigRecordSize*n }

// AppendConfig validates sigs with ValidateSignals and appends the CONFIG payload
// (4 + 136*len(sigs) bytes) to b. On error b is returned unchanged.
func AppendConfig(b []byte, sigs []SignalInfo) ([]byte, error) {
	if err := ValidateSignals(sigs); err != nil {
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
	b = append(b, make([]byte, ConfigRecordSize)...)
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
// result must pass ValidateSignals; anything else is an error wrapping ErrConfig.
// Bytes after a string's NUL are ignored. It allocates the result.
func ParseConfig(b []byte) ([]SignalInfo, error) {
	if len(b) < ConfigCountSize {
		return nil, fmt.Errorf("%w: %d bytes, shorter than the signal count", ErrConfig, len(b))
	}
	n := uint64(binary.LittleEndian.Uint32(b))
	if n == 0 {
		return nil, fmt.Errorf("%w: no signals", ErrConfig)
	}
	if uint64(len(b)-ConfigCountSize) != n*ConfigRecordSize {
		return nil, fmt.Errorf("%w: %d bytes for %d signals, want %d", ErrConfig, len(b), n, ConfigCountSize+n*ConfigRecordSize)
	}
	sigs := make([]SignalInfo, n)
	for i := range sigs {
		r := b[ConfigCountSize+i*ConfigRecordSize:][:ConfigRecordSize]
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
	if err := ValidateSignals(sigs); err != nil {
		return nil, err
	}
	return sigs, nil
}

// cString returns the bytes of f before its first NUL; ok is false without a NUL.
func cString(f []byte) (s string, ok bool) {
	i := bytes.IndexByte(f, 0)
	if i < 0 {
		return "", false
	}
	return string(f[:i]), true
}
