package cpu

import (
	"errors"
	"math/bits"
	"strconv"
	"strings"
)

// Mask is a set of CPUs: bit i set means CPU i is allowed. The zero Mask
// means "no pinning": PinCurrentThread leaves the thread's affinity alone.
// CPUs above 63 cannot be named.
type Mask uint64

// errBadMask is returned (wrapped) by ParseMask for malformed input.
var errBadMask = errors.New("cpu: bad CPU mask")

// ParseMask parses a CPU mask written as MARTe2 writes CPUMask: hexadecimal
// with a 0x prefix ("0x2"), binary with 0b ("0b10"), or decimal ("2").
// Each form denotes the bit mask itself, not a CPU number: "2" is CPU 1.
// The empty string and "0" are the zero Mask (no pinning).
func ParseMask(s string) (Mask, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, nil
	}
	base := 10
	switch {
	case len(t) > 2 && (t[:2] == "0x" || t[:2] == "0X"):
		base, t = 16, t[2:]
	case len(t) > 2 && (t[:2] == "0b" || t[:2] == "0B"):
		base, t = 2, t[2:]
	}
	v, err := strconv.ParseUint(t, base, 64)
	if err != nil {
		return 0, errors.Join(errBadMask, err)
	}
	return Mask(v), nil
}

// String formats m as hexadecimal with a 0x prefix, the form ParseMask reads
// and MARTe2 configurations use.
func (m Mask) String() string {
	return "0x" + strconv.FormatUint(uint64(m), 16)
}

// Has reports whether CPU i is in m.
func (m Mask) Has(i int) bool { return i >= 0 && i < 64 && m&(1<<uint(i)) != 0 }

// Count returns the number of CPUs in m.
func (m Mask) Count() int { return bits.OnesCount64(uint64(m)) }

// Of returns the Mask holding exactly the given CPUs; numbers outside 0..63
// are ignored.
func Of(cpus ...int) Mask {
	var m Mask
	for _, c := range cpus {
		if c >= 0 && c < 64 {
			m |= 1 << uint(c)
		}
	}
	return m
}
