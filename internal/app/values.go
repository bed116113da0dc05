package app

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/cli"
	"github.com/streamerd/streamerd/internal/clip"
	"github.com/streamerd/streamerd/quant"
)

// Bounds of an operator's value text and of what is kept of it.
const (
	// maxFloatLiteral is the longest element text accepted for a float
	// signal: every shortest round-trip form has at most 24 characters,
	// and the rest is room for the digits an operator may type.
	maxFloatLiteral = 40
	// maxShownValue bounds a value as a reply, a log line or /status show
	// it; maxEventValue bounds it in the event ring.
	maxShownValue = 256
	maxEventValue = 128
	// maxQuotedInput bounds the request text quoted in an error message.
	maxQuotedInput = 64
)

// maxLiteral returns the longest text of one element value of type t: the
// digits of the type's widest value and a sign for an integer type.
func maxLiteral(t datasource.Type) int {
	if t.IsFloat() || t.Size() == 0 {
		return maxFloatLiteral
	}
	return len(strconv.FormatUint(math.MaxUint64>>(64-8*t.Size()), 10)) + 1
}

// maxValueLen returns the longest value text accepted for sig: one literal
// per element, each followed by a comma and a space.
func maxValueLen(sig *datasource.Signal) int {
	return sig.Elements() * (maxLiteral(sig.Type) + 2)
}

// parseValue parses an operator's value for sig into its bytes in signal
// memory (native order, little-endian on the supported hosts): one number
// for every element, or a comma-separated list of exactly one per element.
// Numbers are base 10: integers as [+-]digits, floats in decimal or
// scientific notation (or inf, nan); base prefixes (0x, 0b, 0o),
// underscores and hexadecimal floats are refused. A text longer than
// maxValueLen is refused before it is split. For a char8 signal the value
// is the text itself, NUL-padded: at most one byte less than the signal,
// so a NUL always ends it.
func parseValue(sig *datasource.Signal, text string) ([]byte, error) {
	if sig.Type == datasource.Char8 {
		return parseText(sig, text)
	}
	n := sig.Elements()
	if max := maxValueLen(sig); len(text) > max {
		if n == 1 {
			return nil, fmt.Errorf("value of %d bytes; at most %d for one %s", len(text), max, sig.Type)
		}
		return nil, fmt.Errorf("value of %d bytes; at most %d for %s[%d] (one value, or %d comma-separated)", len(text), max, sig.Type, n, n)
	}
	parts := strings.Split(text, ",")
	if len(parts) != 1 && len(parts) != n {
		return nil, fmt.Errorf("%d values for %d elements (give one value or %d)", len(parts), n, n)
	}
	size := sig.Type.Size()
	out := make([]byte, n*size)
	for k := 0; k < n; k++ {
		p := strings.TrimSpace(parts[min(k, len(parts)-1)])
		if err := putValue(out[k*size:], sig.Type, p); err != nil {
			if len(parts) == 1 {
				return nil, err
			}
			return nil, fmt.Errorf("element %d: %w", k, err)
		}
	}
	return out, nil
}

// parseText returns the char8 bytes of text: its bytes, then NULs.
func parseText(sig *datasource.Signal, text string) ([]byte, error) {
	n := sig.Elements()
	switch {
	case len(text) >= n:
		return nil, fmt.Errorf("text of %d bytes does not fit a char8[%d] signal with the NUL that ends it (at most %d bytes)", len(text), n, n-1)
	case strings.IndexByte(text, 0) >= 0:
		return nil, fmt.Errorf("text contains a NUL byte (receivers end the text at the first NUL)")
	}
	out := make([]byte, n)
	copy(out, text)
	return out, nil
}

func putValue(b []byte, t datasource.Type, s string) error {
	le := binary.LittleEndian
	bad := func(why string) error {
		return fmt.Errorf("%s is not a %s: %s", clip.Quote(s, maxQuotedInput), t, why)
	}
	if len(s) > maxLiteral(t) {
		return bad(fmt.Sprintf("longer than %d characters", maxLiteral(t)))
	}
	if t.IsFloat() {
		if !decimalFloat(s) {
			return bad("want a base-10 number such as -1.5, 2e-3, inf or nan")
		}
		bits := 8 * t.Size()
		v, err := strconv.ParseFloat(s, bits)
		if err != nil {
			return bad(numErr(err, t))
		}
		if bits == 32 {
			le.PutUint32(b, math.Float32bits(float32(v)))
		} else {
			le.PutUint64(b, math.Float64bits(v))
		}
		return nil
	}
	if !decimalInt(s) {
		return bad("want a base-10 integer such as -12 (no 0x, 0b, 0o or _)")
	}
	if !t.Signed() && s[0] == '-' {
		return bad("negative")
	}
	var u uint64
	var err error
	if t.Signed() {
		var v int64
		v, err = strconv.ParseInt(s, 10, t.Size()*8)
		u = uint64(v)
	} else {
		u, err = strconv.ParseUint(strings.TrimPrefix(s, "+"), 10, t.Size()*8)
	}
	if err != nil {
		return bad(numErr(err, t))
	}
	putUint(b, t.Size(), u)
	return nil
}

// numErr says why strconv refused a literal that has the right characters.
func numErr(err error, t datasource.Type) string {
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return "out of the " + t.String() + " range"
	}
	return "malformed number"
}

// decimalInt reports whether s is a sign and base-10 digits.
func decimalInt(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// decimalFloat reports whether s uses only the characters of a base-10
// float (digits, sign, point, exponent) or is inf, infinity or nan with an
// optional sign, in any case. strconv.ParseFloat checks the syntax.
func decimalFloat(s string) bool {
	w := strings.TrimLeft(s, "+-")
	if strings.EqualFold(w, "inf") || strings.EqualFold(w, "infinity") || strings.EqualFold(w, "nan") {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == '+', c == '-', c == '.', c == 'e', c == 'E':
		default:
			return false
		}
	}
	return s != ""
}

func putUint(b []byte, size int, v uint64) {
	for i := 0; i < size; i++ {
		b[i] = byte(v >> (8 * i))
	}
}

// element returns element k of b (signal memory of type t) as text.
func element(t datasource.Type, b []byte, k int) string {
	return string(cli.AppendRaw(nil, t, t.Raw(b[k*t.Size():], binary.NativeEndian)))
}

// formatValue is the inverse of parseValue, at most about max bytes: one
// value when every element holds the same bytes ("2.5 (all 8 elements)"),
// else the comma list, cut after the element that passes max and followed
// by "…(N elements)". A char8 signal's text is escaped
// (cli.AppendText) and cut at max bytes.
func formatValue(sig *datasource.Signal, b []byte, max int) string {
	if sig.Type == datasource.Char8 {
		return clip.Prefix(string(cli.AppendText(nil, b)), max)
	}
	size := sig.Type.Size()
	n := len(b) / size
	if n == 0 {
		return ""
	}
	if n > 1 && uniform(b, size) {
		return element(sig.Type, b, 0) + " (all " + strconv.Itoa(n) + " elements)"
	}
	var sb strings.Builder
	for k := 0; k < n; k++ {
		if k > 0 {
			sb.WriteByte(',')
		}
		if sb.Len() >= max {
			sb.WriteString("…(" + strconv.Itoa(n) + " elements)")
			break
		}
		sb.WriteString(element(sig.Type, b, k))
	}
	return sb.String()
}

// uniform reports whether every size-byte element of b equals the first.
func uniform(b []byte, size int) bool {
	for k := size; k < len(b); k += size {
		if string(b[k:k+size]) != string(b[:size]) {
			return false
		}
	}
	return true
}

// wireClamp counts the elements of a forced value b (signal memory of sig)
// that a quantised signal cannot carry: outside [RangeMin, RangeMax], or
// NaN. note says what the client receives instead; both are zero for a
// signal that is not quantised or a value the wire carries.
func wireClamp(sig *datasource.Signal, b []byte) (clamped int, note string) {
	if sig.QuantizedType == quant.None || !sig.Type.IsFloat() {
		return 0, ""
	}
	q, err := quant.New(sig.QuantizedType, sig.RangeMin, sig.RangeMax)
	if err != nil {
		return 0, ""
	}
	n, first := len(b)/sig.Type.Size(), -1
	for k := 0; k < n; k++ {
		if v := floatAt(sig.Type, b, k); math.IsNaN(v) || v < sig.RangeMin || v > sig.RangeMax {
			clamped++
			if first < 0 {
				first = k
			}
		}
	}
	if clamped == 0 {
		return 0, ""
	}
	what := fmt.Sprintf("%d of %d elements are", clamped, n)
	switch {
	case n == 1 || uniform(b, sig.Type.Size()):
		what = "the value is"
	case clamped == 1:
		what = fmt.Sprintf("element %d is", first)
	}
	got := q.Value(q.Code(floatAt(sig.Type, b, first)))
	bits := 8 * sig.Type.Size() // a float32 signal is decoded to float32
	return clamped, fmt.Sprintf("%s outside the %s quantisation range [%g, %g] and clamped on the wire: %s arrives as %s",
		what, sig.QuantizedType, sig.RangeMin, sig.RangeMax, element(sig.Type, b, first), strconv.FormatFloat(got, 'g', -1, bits))
}

// floatAt returns element k of b, signal memory of float type t.
func floatAt(t datasource.Type, b []byte, k int) float64 {
	if t == datasource.Float32 {
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:])))
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b[8*k:]))
}
