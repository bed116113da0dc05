package wire

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

var golden = []byte{
	0x44, 0x52, // magic 0x5244
	0x01,                   // version
	0x00,                   // reserved0
	0x04, 0x03, 0x02, 0x01, // seq 0x01020304
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, // t_us 0x1122334455667788
	0x3f, 0x7e, 0x05, 0x00, // az 359999
	0x70, 0xa0, 0xfe, 0xff, // el -90000
	0xff, 0xff, 0xff, 0xff, // az_rate -1
	0x40, 0xe2, 0x01, 0x00, // el_rate 123456
	0x43, 0x00, // status AZ_VALID|EL_VALID|SIM
	0x00, 0x00, // reserved1
}

var goldenPacket = Packet{
	Seq: 0x01020304, TUs: 0x1122334455667788,
	AzMdeg: 359999, ElMdeg: -90000, AzRate: -1, ElRate: 123456,
	Status: AzValid | ElValid | Sim,
}

func TestGolden(t *testing.T) {
	if len(golden) != PacketSize {
		t.Fatalf("golden is %d bytes", len(golden))
	}
	b := AppendPacket(nil, &goldenPacket)
	if !bytes.Equal(b, golden) {
		t.Fatalf("AppendPacket:\n got %x\nwant %x", b, golden)
	}
	p, err := ParsePacket(golden)
	if err != nil || p != goldenPacket {
		t.Fatalf("ParsePacket = %+v, %v; want %+v", p, err, goldenPacket)
	}
	// Appending keeps the prefix.
	b = AppendPacket([]byte{9, 9}, &goldenPacket)
	if !bytes.Equal(b[:2], []byte{9, 9}) || !bytes.Equal(b[2:], golden) {
		t.Fatalf("append to prefix: %x", b)
	}
}

func TestParseErrors(t *testing.T) {
	mod := func(f func(b []byte) []byte) []byte {
		return f(append([]byte(nil), golden...))
	}
	cases := []struct {
		name string
		in   []byte
		err  error
	}{
		{"nil", nil, ErrSize},
		{"short", golden[:35], ErrSize},
		{"long", append(append([]byte(nil), golden...), 0), ErrSize},
		{"magic", mod(func(b []byte) []byte { b[0] = 0x52; b[1] = 0x44; return b }), ErrMagic},
		{"version0", mod(func(b []byte) []byte { b[2] = 0; return b }), ErrVersion},
		{"version2", mod(func(b []byte) []byte { b[2] = 2; return b }), ErrVersion},
		{"short-bad-magic", []byte{0, 0, 0}, ErrSize},
	}
	for _, c := range cases {
		if _, err := ParsePacket(c.in); !errors.Is(err, c.err) {
			t.Errorf("%s: err %v, want %v", c.name, err, c.err)
		}
	}
}

func TestReservedIgnored(t *testing.T) {
	b := append([]byte(nil), golden...)
	b[offReserved0] = 0xaa
	b[offReserved1] = 0xbb
	b[offReserved1+1] = 0xcc
	b[offStatus+1] = 0x81 // reserved status bits kept as received
	p, err := ParsePacket(b)
	if err != nil {
		t.Fatal(err)
	}
	want := goldenPacket
	want.Status |= 0x8100
	if p != want {
		t.Fatalf("got %+v want %+v", p, want)
	}
	if p.Status.known() != goldenPacket.Status {
		t.Fatalf("Known() = %v", p.Status.known())
	}
	// Re-encoding zeroes the reserved bytes (but keeps status as given).
	out := AppendPacket(nil, &p)
	if out[offReserved0] != 0 || out[offReserved1] != 0 || out[offReserved1+1] != 0 {
		t.Fatalf("reserved not zero: %x", out)
	}
}

func TestNormalizeAzimuth(t *testing.T) {
	cases := map[int64]int32{
		0: 0, 1: 1, 359999: 359999, 360000: 0, 360001: 1, 720000: 0,
		-1: 359999, -360000: 0, -360001: 359999, -720001: 359999,
		math.MaxInt64: int32(math.MaxInt64 % 360000),
		math.MinInt64: int32(math.MinInt64%360000 + 360000),
	}
	for in, want := range cases {
		if got := NormalizeAzimuthMdeg(in); got != want {
			t.Errorf("NormalizeAzimuthMdeg(%d) = %d, want %d", in, got, want)
		}
	}
}

func TestAzimuthDelta(t *testing.T) {
	cases := []struct{ from, to, want int32 }{
		{359999, 0, 1}, {0, 359999, -1}, {10, 20, 10}, {20, 10, -10},
		{0, 180000, 180000}, {0, 180001, -179999}, {100, 100, 0},
	}
	for _, c := range cases {
		if got := AzimuthDeltaMdeg(c.from, c.to); got != c.want {
			t.Errorf("AzimuthDeltaMdeg(%d,%d) = %d, want %d", c.from, c.to, got, c.want)
		}
	}
}

func TestStatusString(t *testing.T) {
	cases := map[Status]string{
		0:                         "0",
		AzValid:                   "AZ_VALID",
		AzValid | ElValid | Sim:   "AZ_VALID|EL_VALID|SIM",
		0xff:                      "AZ_VALID|EL_VALID|AZ_REF_OK|EL_REF_OK|AZ_FAULT|EL_FAULT|SIM|DEGRADED",
		Degraded | 0x8100:         "DEGRADED|0x8100",
		0x0200:                    "0x200",
		AzFault | ElFault | 0x100: "AZ_FAULT|EL_FAULT|0x100",
	}
	for s, want := range cases {
		if got := s.String(); got != want {
			t.Errorf("%#x.String() = %q, want %q", uint16(s), got, want)
		}
	}
}

var (
	sinkBytes  []byte
	sinkPacket Packet
	sinkErr    error
)

func TestPacketNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	buf := make([]byte, 0, PacketSize)
	if n := testing.AllocsPerRun(1000, func() {
		sinkBytes = AppendPacket(buf[:0], &goldenPacket)
	}); n != 0 {
		t.Errorf("AppendPacket: %v allocs", n)
	}
	for _, in := range [][]byte{golden, golden[:10], nil} {
		if n := testing.AllocsPerRun(1000, func() {
			sinkPacket, sinkErr = ParsePacket(in)
		}); n != 0 {
			t.Errorf("ParsePacket(%d bytes): %v allocs", len(in), n)
		}
	}
}

func FuzzParsePacket(f *testing.F) {
	for _, p := range []Packet{
		goldenPacket,
		{},
		{Seq: math.MaxUint32, TUs: math.MaxUint64, AzMdeg: math.MinInt32, ElMdeg: math.MaxInt32, Status: 0xffff},
	} {
		b := AppendPacket(nil, &p)
		f.Add(b)
		f.Add(b[:20])
		f.Add(append(b, 0))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePacket(b)
		if err != nil {
			if p != (Packet{}) {
				t.Fatalf("non-zero packet with error %v", err)
			}
			return
		}
		out := AppendPacket(nil, &p)
		// The re-encoding matches the input except for the reserved bytes.
		want := append([]byte(nil), b...)
		want[offReserved0] = 0
		want[offReserved1], want[offReserved1+1] = 0, 0
		if !bytes.Equal(out, want) {
			t.Fatalf("round trip:\n in %x\nout %x", b, out)
		}
		q, err := ParsePacket(out)
		if err != nil || q != p {
			t.Fatalf("reparse %+v %v", q, err)
		}
	})
}

func BenchmarkAppendPacket(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, PacketSize)
	p := goldenPacket
	for i := 0; b.Loop(); i++ {
		p.Seq = uint32(i)
		sinkBytes = AppendPacket(buf[:0], &p)
	}
}

func BenchmarkParsePacket(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkPacket, sinkErr = ParsePacket(golden)
	}
}
