// Package wire encodes and decodes RD100S-ENC-UDP v1 position packets, without doing any I/O.
//
// An emitter fills a Packet and calls AppendPacket into a buffer it owns,
// then sends the 36 bytes as one datagram; a receiver calls ParsePacket on
// each datagram (streamerd's rd100smon does so and tracks the link).
// Neither allocates.
package wire

import (
	"encoding/binary"
	"errors"
)

// Wire constants of RD100S-ENC-UDP v1 (docs/rd100s.md, sections 1, 2 and 5).
const (
	PacketSize           = 36     // every datagram is exactly this long
	magicNumber   uint16 = 0x5244 // "DR" little-endian; rejects foreign traffic
	versionNumber uint8  = 1      // the only format this package knows
)

// Byte offsets of the fields of section 2. All multi-byte fields are
// little-endian.
const (
	offMagic     = 0  // u16
	offVersion   = 2  // u8
	offReserved0 = 3  // u8, zero on emission, ignored on reception
	offSeq       = 4  // u32
	offTUs       = 8  // u64, microseconds since the emitter started
	offAzMdeg    = 16 // i32, 0..359999
	offElMdeg    = 20 // i32, -90000..90000 nominal
	offAzRate    = 24 // i32, mdeg/s
	offElRate    = 28 // i32, mdeg/s
	offStatus    = 32 // u16, section 3
	offReserved1 = 34 // u16, zero on emission, ignored on reception
)

// MdegPerTurn is the number of azimuth units in a full turn; az_mdeg is
// always in 0..MdegPerTurn-1.
const mdegPerTurn = 360000

// Errors returned by ParsePacket, one per discard reason of section 4.
// Compare with errors.Is or ==; they are never wrapped.
var (
	ErrSize    = errors.New("rd100s/wire: datagram is not 36 bytes")
	ErrMagic   = errors.New("rd100s/wire: bad magic")
	ErrVersion = errors.New("rd100s/wire: unknown version")
)

// Packet is one decoded RD100S-ENC-UDP v1 datagram. Reserved fields are not
// represented: they are written as zero and ignored on reception.
type Packet struct {
	Seq    uint32 `json:"seq"`     // +1 per emitted packet, wraps at 2^32
	TUs    uint64 `json:"t_us"`    // microseconds of the emitter's monotonic clock since it started
	AzMdeg int32  `json:"az_mdeg"` // azimuth in 0.001 degree, 0..359999
	ElMdeg int32  `json:"el_mdeg"` // elevation in 0.001 degree, -90000..90000 (may exceed on encoder fault)
	AzRate int32  `json:"az_rate"` // azimuth rate in mdeg/s
	ElRate int32  `json:"el_rate"` // elevation rate in mdeg/s
	Status Status `json:"status"`  // section 3 status word
}

// AppendPacket appends the 36-byte encoding of p to b and returns the
// extended slice. Magic and Version are written, reserved fields are zero.
// Fields are written as given: callers normalise azimuth with
// NormalizeAzimuthMdeg if needed. It does not allocate when b has room.
func AppendPacket(b []byte, p *Packet) []byte {
	b = binary.LittleEndian.AppendUint16(b, magicNumber)
	b = append(b, versionNumber, 0)
	b = binary.LittleEndian.AppendUint32(b, p.Seq)
	b = binary.LittleEndian.AppendUint64(b, p.TUs)
	b = binary.LittleEndian.AppendUint32(b, uint32(p.AzMdeg))
	b = binary.LittleEndian.AppendUint32(b, uint32(p.ElMdeg))
	b = binary.LittleEndian.AppendUint32(b, uint32(p.AzRate))
	b = binary.LittleEndian.AppendUint32(b, uint32(p.ElRate))
	b = binary.LittleEndian.AppendUint16(b, uint16(p.Status))
	b = binary.LittleEndian.AppendUint16(b, 0)
	return b
}

// ParsePacket decodes one datagram. It applies the three checks of section 4
// in order: length exactly PacketSize (ErrSize), magic (ErrMagic), version
// (ErrVersion). Reserved bytes and reserved status bits are ignored (the
// status bits are returned as received). A packet always consumes the whole
// datagram, so no byte count is returned. It never panics and does not
// allocate.
func ParsePacket(b []byte) (Packet, error) {
	if len(b) != PacketSize {
		return Packet{}, ErrSize
	}
	if binary.LittleEndian.Uint16(b[offMagic:]) != magicNumber {
		return Packet{}, ErrMagic
	}
	if b[offVersion] != versionNumber {
		return Packet{}, ErrVersion
	}
	return Packet{
		Seq:    binary.LittleEndian.Uint32(b[offSeq:]),
		TUs:    binary.LittleEndian.Uint64(b[offTUs:]),
		AzMdeg: int32(binary.LittleEndian.Uint32(b[offAzMdeg:])),
		ElMdeg: int32(binary.LittleEndian.Uint32(b[offElMdeg:])),
		AzRate: int32(binary.LittleEndian.Uint32(b[offAzRate:])),
		ElRate: int32(binary.LittleEndian.Uint32(b[offElRate:])),
		Status: Status(binary.LittleEndian.Uint16(b[offStatus:])),
	}, nil
}

// NormalizeAzimuthMdeg wraps an azimuth in millidegrees into 0..359999
// (mathematical modulo, so -1 becomes 359999 and 360000 becomes 0).
func NormalizeAzimuthMdeg(mdeg int64) int32 {
	r := mdeg % mdegPerTurn
	if r < 0 {
		r += mdegPerTurn
	}
	return int32(r)
}

// AzimuthDeltaMdeg returns the shortest signed angle from one azimuth to
// another, in -179999..180000 millidegrees, so that a step across the
// 359999→0 wrap (section 2) is +1, not -359999. Inputs need not be
// normalised.
func AzimuthDeltaMdeg(from, to int32) int32 {
	d := NormalizeAzimuthMdeg(int64(to) - int64(from))
	if d > mdegPerTurn/2 {
		d -= mdegPerTurn
	}
	return d
}
