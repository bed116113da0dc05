package app

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/streamerd/streamerd/datasource"
)

// parseValue parses an operator's value for sig into its bytes in signal
// memory (native order, little-endian on the supported hosts): one number
// for every element, or a comma-separated list of exactly one per element.
// For a char8 signal the value is the text itself, NUL-padded: at most
// one byte less than the signal, so a NUL always ends it.
func parseValue(sig *datasource.Signal, text string) ([]byte, error) {
	if sig.Type == datasource.Char8 {
		return parseText(sig, text)
	}
	parts := strings.Split(text, ",")
	n := sig.Elements()
	if len(parts) != 1 && len(parts) != n {
		return nil, fmt.Errorf("%d values for %d elements (give one value or %d)", len(parts), n, n)
	}
	size := sig.Type.Size()
	out := make([]byte, n*size)
	for k := 0; k < n; k++ {
		p := strings.TrimSpace(parts[min(k, len(parts)-1)])
		if err := putValue(out[k*size:], sig.Type, p); err != nil {
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
	switch t {
	case datasource.Float32:
		v, err := strconv.ParseFloat(s, 32)
		if err != nil {
			return err
		}
		le.PutUint32(b, math.Float32bits(float32(v)))
	case datasource.Float64:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return err
		}
		le.PutUint64(b, math.Float64bits(v))
	case datasource.Uint8, datasource.Uint16, datasource.Uint32, datasource.Uint64:
		v, err := strconv.ParseUint(s, 0, t.Size()*8)
		if err != nil {
			return fmt.Errorf("%q is not a %s", s, t)
		}
		putUint(b, t.Size(), v)
	default:
		v, err := strconv.ParseInt(s, 0, t.Size()*8)
		if err != nil {
			return fmt.Errorf("%q is not a %s", s, t)
		}
		putUint(b, t.Size(), uint64(v))
	}
	return nil
}

func putUint(b []byte, size int, v uint64) {
	for i := 0; i < size; i++ {
		b[i] = byte(v >> (8 * i))
	}
}

// formatValue is the inverse of parseValue, for /status: a char8 signal's
// text is escaped (datasource.AppendText).
func formatValue(sig *datasource.Signal, b []byte) string {
	if sig.Type == datasource.Char8 {
		return string(datasource.AppendText(nil, b))
	}
	size := sig.Type.Size()
	var sb strings.Builder
	for k := 0; k+size <= len(b); k += size {
		if k > 0 {
			sb.WriteByte(',')
		}
		var u uint64
		for i := 0; i < size; i++ {
			u |= uint64(b[k+i]) << (8 * i)
		}
		switch sig.Type {
		case datasource.Float32:
			sb.WriteString(strconv.FormatFloat(float64(math.Float32frombits(uint32(u))), 'g', -1, 32))
		case datasource.Float64:
			sb.WriteString(strconv.FormatFloat(math.Float64frombits(u), 'g', -1, 64))
		case datasource.Int8, datasource.Int16, datasource.Int32, datasource.Int64:
			shift := 64 - 8*size
			sb.WriteString(strconv.FormatInt(int64(u<<shift)>>shift, 10))
		default:
			sb.WriteString(strconv.FormatUint(u, 10))
		}
	}
	return sb.String()
}
