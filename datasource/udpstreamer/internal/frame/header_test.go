package frame

import (
	"bytes"
	"errors"
	"testing"
)

func TestHeaderGolden(t *testing.T) {
	h := Header{Type: Config, Counter: 0x04030201, FragmentIdx: 2, TotalFragments: 6, PayloadBytes: 3}
	want := []byte{
		0x55, 0x44, 0x50, 0x53, // magic 'UDPS'
		0x01,                   // type CONFIG
		0x01, 0x02, 0x03, 0x04, // counter
		0x02, 0x00, // fragmentIdx
		0x06, 0x00, // totalFragments
		0x03, 0x00, 0x00, 0x00, // payloadBytes
	}
	got := AppendHeader(nil, h)
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendHeader = % x, want % x", got, want)
	}
	var put [HeaderSize]byte
	PutHeader(put[:], h)
	if !bytes.Equal(put[:], want) {
		t.Fatalf("PutHeader = % x, want % x", put, want)
	}
	d := append(want, 'a', 'b', 'c')
	ph, n, err := ParseHeader(d)
	if err != nil || n != HeaderSize || ph != h {
		t.Fatalf("ParseHeader = %+v, %d, %v", ph, n, err)
	}
}

func TestConnectDatagram(t *testing.T) {
	// What a client sends: 17 bytes, payloadBytes 0, fragment 0 of 1.
	d := AppendHeader(nil, Header{Type: Connect, TotalFragments: 1})
	if len(d) != HeaderSize {
		t.Fatalf("len %d", len(d))
	}
	h, _, err := ParseHeader(d)
	if err != nil || h.Type != Connect {
		t.Fatalf("%+v %v", h, err)
	}
}

func TestParseHeaderErrors(t *testing.T) {
	good := Header{Type: Data, Counter: 7, FragmentIdx: 0, TotalFragments: 1, PayloadBytes: 4}
	mk := func(h Header, payload int) []byte { return append(AppendHeader(nil, h), make([]byte, payload)...) }
	badMagic := mk(good, 4)
	badMagic[0] = 'X'
	with := func(f func(*Header)) Header { h := good; f(&h); return h }
	cases := []struct {
		name string
		b    []byte
		want HeaderError
	}{
		{"empty", nil, ErrShort},
		{"16 bytes", mk(good, 0)[:16], ErrShort},
		{"magic", badMagic, ErrMagic},
		{"type 5", mk(with(func(h *Header) { h.Type = 5 }), 4), ErrType},
		{"type 255", mk(with(func(h *Header) { h.Type = 255 }), 4), ErrType},
		{"total 0", mk(with(func(h *Header) { h.TotalFragments = 0 }), 4), ErrFragment},
		{"idx == total", mk(with(func(h *Header) { h.FragmentIdx = 1 }), 4), ErrFragment},
		{"payload longer than claimed", mk(good, 5), ErrPayloadLength},
		{"payload shorter than claimed", mk(good, 3), ErrPayloadLength},
		{"huge payloadBytes", mk(with(func(h *Header) { h.PayloadBytes = 0xFFFFFFFF }), 4), ErrPayloadLength},
	}
	for _, c := range cases {
		_, n, err := ParseHeader(c.b)
		if err != c.want || n != 0 || !errors.Is(err, c.want) {
			t.Errorf("%s: err %v n %d, want %v", c.name, err, n, c.want)
		}
	}
	if _, _, err := ParseHeader(mk(good, 4)); err != nil {
		t.Fatal(err)
	}
	var counts [NumHeaderErrors]int
	for _, c := range cases {
		_, _, err := ParseHeader(c.b)
		counts[err.(HeaderError)]++
	}
	if counts[ErrShort] != 2 || counts[ErrPayloadLength] != 3 {
		t.Fatalf("counts %v", counts)
	}
}

func FuzzParseHeader(f *testing.F) {
	f.Add(AppendHeader(nil, Header{Type: Connect, TotalFragments: 1}))
	f.Add(append(AppendHeader(nil, Header{Type: Data, Counter: 0xFFFFFFFF, FragmentIdx: 5, TotalFragments: 6, PayloadBytes: 3}), 1, 2, 3))
	f.Add(append(AppendHeader(nil, Header{Type: Config, Counter: 1, FragmentIdx: 0, TotalFragments: 1, PayloadBytes: 2}), 1, 2, 3))
	f.Add([]byte("UDPS"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, n, err := ParseHeader(b)
		if err != nil {
			if _, ok := err.(HeaderError); !ok || n != 0 {
				t.Fatalf("error %T %v n %d", err, err, n)
			}
			return
		}
		if n != HeaderSize || !h.Type.Valid() || h.TotalFragments == 0 || h.FragmentIdx >= h.TotalFragments || int(h.PayloadBytes) != len(b)-HeaderSize {
			t.Fatalf("accepted bad header %+v from % x", h, b)
		}
		if re := AppendHeader(nil, h); !bytes.Equal(re, b[:HeaderSize]) {
			t.Fatalf("round trip % x != % x", re, b[:HeaderSize])
		}
	})
}
