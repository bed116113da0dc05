package wire

import "strconv"

// Status is the status word of section 3. Bit 0 is the least significant.
// Bits 8-15 are reserved: zero on emission, ignored on reception (Status
// keeps them as received; use Known to drop them).
type Status uint16

// Status bits of section 3.
const (
	AzValid  Status = 1 << 0 // azimuth reading is valid; when clear az_mdeg must be discarded
	ElValid  Status = 1 << 1 // elevation reading is valid
	AzRefOK  Status = 1 << 2 // azimuth axis is referenced
	ElRefOK  Status = 1 << 3 // elevation axis is referenced
	AzFault  Status = 1 << 4 // fault in the azimuth chain
	ElFault  Status = 1 << 5 // fault in the elevation chain
	Sim      Status = 1 << 6 // packet comes from the emulator (always set by streamerd)
	Degraded Status = 1 << 7 // emitter is degraded or injecting faults

	// KnownBits are the bits assigned by version 1.
	knownBits Status = 0xff
)

var statusNames = [8]string{"AZ_VALID", "EL_VALID", "AZ_REF_OK", "EL_REF_OK", "AZ_FAULT", "EL_FAULT", "SIM", "DEGRADED"}

// Known returns s without the reserved bits 8-15.
func (s Status) known() Status { return s & knownBits }

// String returns the set bits by their protocol names joined by '|', for
// example "AZ_VALID|EL_VALID|SIM"; reserved bits that are set follow as one
// hexadecimal term, and 0 prints as "0".
func (s Status) String() string {
	if s == 0 {
		return "0"
	}
	var buf [96]byte
	b := buf[:0]
	for i, n := range statusNames {
		if s&(1<<i) != 0 {
			if len(b) > 0 {
				b = append(b, '|')
			}
			b = append(b, n...)
		}
	}
	if r := s &^ knownBits; r != 0 {
		if len(b) > 0 {
			b = append(b, '|')
		}
		b = append(b, "0x"...)
		b = strconv.AppendUint(b, uint64(r), 16)
	}
	return string(b)
}
