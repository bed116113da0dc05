package wire

import (
	"strconv"
	"strings"

	"github.com/streamerd/streamerd/datasource"
)

// Limits of a signal list.
const (
	// MaxCount is the largest element count of one signal.
	MaxCount = 4096
	// MaxDatagramSize is the IPv4 UDP payload limit, the largest total size
	// of a signal list.
	MaxDatagramSize = 65507
)

// reservedNameChars cannot appear in a name: the signals string uses them.
const reservedNameChars = ",:[]"

// Signal is one row of a signal list: Count elements of Type, packed.
//
// In the signals string a row reads name:type, or name:type[count] when
// Count is not 1, with a trailing "w" when Waveform is set. Waveform changes
// only how a receiver shows a vector (one channel of Count consecutive
// samples instead of Count channels); the wire bytes are the same. A
// char8[count] row ("Label:char8[16]") is text: count bytes, NUL-padded,
// never byte-swapped, shown as one string.
type Signal struct {
	Name     string
	Type     datasource.Type
	Count    int // elements, 1..MaxCount
	Waveform bool
}

// Size returns the size of the signal in bytes.
func (s Signal) size() int { return s.Type.Size() * s.Count }

// AppendText appends the signal's row of the signals string to b.
func (s Signal) appendText(b []byte) []byte {
	b = append(b, s.Name...)
	b = append(b, ':')
	b = append(b, s.Type.String()...)
	if s.Count != 1 || s.Waveform {
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(s.Count), 10)
		b = append(b, ']')
		if s.Waveform {
			b = append(b, 'w')
		}
	}
	return b
}

// signalError is a signal list that breaks a rule: row is the 0-based row
// (-1 for a rule about the whole list); the message shows it 1-based, as a
// form's row number. Row and Rule give a caller (the FlatUDP producer,
// which reports it at its signal) the row and the rule.
type signalError struct {
	row  int
	name string
	rule string
}

func (e *signalError) Error() string {
	if e.row < 0 {
		return "flatudp/wire: signal list: " + e.rule
	}
	s := "flatudp/wire: signal "
	if e.name != "" {
		s += strconv.Quote(e.name) + " "
	}
	return s + "(row " + strconv.Itoa(e.row+1) + "): " + e.rule
}

// Row returns the 0-based row of the signal that breaks the rule, -1 for
// a rule about the whole list.
func (e *signalError) Row() int { return e.row }

// Rule returns the rule broken, without the row.
func (e *signalError) Rule() string { return e.rule }

func rowError(i int, name, rule string) error { return &signalError{row: i, name: name, rule: rule} }

// AppendSignals appends the signals string of sigs to b: the rows joined by
// commas, without spaces.
func appendSignals(b []byte, sigs []Signal) []byte {
	for i, s := range sigs {
		if i > 0 {
			b = append(b, ',')
		}
		b = s.appendText(b)
	}
	return b
}

// FormatSignals returns the signals string of sigs, the inverse of
// ParseLayout: "Trigger:uint8,Ia:float32,Wave:float32[16]".
func FormatSignals(sigs []Signal) string { return string(appendSignals(nil, sigs)) }

// parseSignals parses a signals string (rows name:type[count] with an
// optional trailing w, joined by commas; spaces around names, types and rows
// are ignored) and checks the result with validate. Errors name
// the row and the rule.
func parseSignals(s string) ([]Signal, error) {
	if strings.TrimSpace(s) == "" {
		return nil, &signalError{row: -1, rule: "at least one signal is required"}
	}
	sigs := make([]Signal, 0, strings.Count(s, ",")+1)
	for i := 0; ; i++ {
		row, rest, more := strings.Cut(s, ",")
		sig, err := parseRow(i, row)
		if err != nil {
			return nil, err
		}
		sigs = append(sigs, sig)
		if !more {
			break
		}
		s = rest
	}
	if err := validate(sigs); err != nil {
		return nil, err
	}
	return sigs, nil
}

func parseRow(i int, row string) (Signal, error) {
	row = strings.TrimSpace(row)
	if row == "" {
		return Signal{}, rowError(i, "", "empty row (a stray comma?)")
	}
	name, spec, ok := strings.Cut(row, ":")
	name = strings.TrimSpace(name)
	if !ok {
		return Signal{}, rowError(i, name, "missing \":type\" after the name")
	}
	sig := Signal{Name: name, Count: 1}
	typ := spec
	if open := strings.IndexByte(spec, '['); open >= 0 {
		typ = spec[:open]
		inner, suffix, ok := strings.Cut(spec[open+1:], "]")
		if !ok {
			return Signal{}, rowError(i, name, "missing \"]\" after the count")
		}
		n, ok := parseCount(strings.TrimSpace(inner))
		if !ok {
			return Signal{}, rowError(i, name, "count "+strconv.Quote(inner)+" is not a decimal number")
		}
		sig.Count = n
		switch strings.TrimSpace(suffix) {
		case "":
		case "w":
			sig.Waveform = true
		default:
			return Signal{}, rowError(i, name, "unexpected "+strconv.Quote(suffix)+" after the count (only \"w\" may follow it)")
		}
	}
	typ = strings.TrimSpace(typ)
	t, err := datasource.ParseType(strings.ToLower(typ))
	if err != nil {
		rule := "unknown type " + strconv.Quote(typ)
		if strings.HasSuffix(typ, "w") {
			rule += " (a waveform is written type[count]w)"
		}
		return Signal{}, rowError(i, name, rule)
	}
	sig.Type = t
	return sig, nil
}

// parseCount parses an unsigned decimal of at most 9 digits, so it cannot
// overflow; anything longer is far out of range anyway and reported as such.
func parseCount(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if i < 9 {
			n = n*10 + int(c-'0')
		} else {
			n = MaxCount + 1 // saturate: out of range, reported by validate
		}
	}
	return n, true
}

// validate checks the wire rules of a signal list: at least one signal;
// names non-empty, unique and free of the signals string's separators
// (",:[]", leading or trailing spaces, control characters); a valid type;
// count 1..MaxCount; total size at most MaxDatagramSize bytes; and a
// waveform row has count > 1 (otherwise its "w" cannot be written).
// Errors name the row and the rule.
func validate(sigs []Signal) error {
	if len(sigs) == 0 {
		return &signalError{row: -1, rule: "at least one signal is required"}
	}
	total := 0
	rows := make(map[string]int, len(sigs))
	for i, s := range sigs {
		if err := validateName(i, s.Name); err != nil {
			return err
		}
		if j, dup := rows[s.Name]; dup {
			return rowError(i, s.Name, "duplicate name (also row "+strconv.Itoa(j+1)+")")
		}
		rows[s.Name] = i
		if !s.Type.Valid() {
			return rowError(i, s.Name, "invalid type "+s.Type.String())
		}
		if s.Count < 1 || s.Count > MaxCount {
			return rowError(i, s.Name, "count "+strconv.Itoa(s.Count)+" is outside 1.."+strconv.Itoa(MaxCount))
		}
		if s.Waveform && s.Count < 2 {
			return rowError(i, s.Name, "a waveform (w) needs count > 1")
		}
		if s.Waveform && s.Type == datasource.Char8 {
			return rowError(i, s.Name, "a char8 row is text, not a waveform (w)")
		}
		total += s.size()
		if total > MaxDatagramSize {
			return rowError(i, s.Name, "total size reaches "+strconv.Itoa(total)+
				" bytes, over the "+strconv.Itoa(MaxDatagramSize)+"-byte UDP payload limit")
		}
	}
	return nil
}

func validateName(i int, name string) error {
	if name == "" {
		return rowError(i, "", "name is empty")
	}
	if strings.TrimSpace(name) != name {
		return rowError(i, name, "name has leading or trailing spaces")
	}
	for k := 0; k < len(name); k++ {
		c := name[k]
		if c < 0x20 || c == 0x7f {
			return rowError(i, name, "name has a control character")
		}
		if strings.IndexByte(reservedNameChars, c) >= 0 {
			return rowError(i, name, "name contains "+strconv.QuoteRune(rune(c))+
				", reserved by the signals string")
		}
	}
	return nil
}

// TotalSize returns the datagram size of sigs in bytes.
func totalSize(sigs []Signal) int {
	n := 0
	for _, s := range sigs {
		n += s.size()
	}
	return n
}

// totalElements returns the number of elements of sigs, the length of the
// slices Decode and DecodeRaw fill.
func totalElements(sigs []Signal) int {
	n := 0
	for _, s := range sigs {
		n += s.Count
	}
	return n
}
