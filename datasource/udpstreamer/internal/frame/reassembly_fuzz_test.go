package frame

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// frameDatagrams concatenates datagrams, each preceded by its uint16 length: the
// fuzz input format of FuzzReassembler.
func frameDatagrams(ds [][]byte) []byte {
	var b []byte
	for _, d := range ds {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(d)))
		b = append(b, d...)
	}
	return b
}

const (
	fuzzMaxPayload = 1024
	fuzzExpect     = 300
)

// FuzzReassembler feeds arbitrary datagram sequences to a Reassembler and checks
// that it never panics, that every completed payload is the in-order concatenation
// of fragments it accepted, within MaxPayload (and of the expected size when set),
// and that it keeps to its preallocated memory.
func FuzzReassembler(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 7))
	for mode := byte(0); mode < 4; mode++ {
		l, _ := NewLayout(fuzzExpect, 117) // chunk 100, 3 fragments
		var ds [][]byte
		for c := uint32(0); c < 3; c++ {
			ds = append(ds, datagrams(l, Data, c, updatePayload(c, fuzzExpect))...)
		}
		ds = append(ds, ds[3], ds[7])
		rng.Shuffle(len(ds), func(i, j int) { ds[i], ds[j] = ds[j], ds[i] })
		f.Add(mode, frameDatagrams(ds))
	}
	small, _ := NewLayout(8, 18)
	f.Add(byte(0), frameDatagrams(datagrams(small, Data, 0xFFFFFFFF, pattern(8))))
	f.Fuzz(fuzzReassemblerOnce)
}

func fuzzReassemblerOnce(t *testing.T, mode byte, in []byte) {
	{
		cfg := ReassemblerConfig{Type: Data, MaxPayload: fuzzMaxPayload, InFlight: 3}
		if mode&1 != 0 {
			cfg.Chunk = 100
		}
		r, err := NewReassembler(cfg)
		if err != nil {
			t.Fatal(err)
		}
		expect := 0
		if mode&2 != 0 {
			expect = fuzzExpect
			r.SetExpectedPayload(expect)
		}
		bufs := make([][]byte, len(r.slots))
		for i := range r.slots {
			bufs[i] = r.slots[i].buf
		}
		model := map[uint32]map[int][]byte{}
		for len(in) >= 2 {
			n := int(binary.LittleEndian.Uint16(in))
			in = in[2:]
			if n > len(in) {
				n = len(in)
			}
			d := in[:n]
			in = in[n:]
			h, _, herr := ParseHeader(d)
			p, c, err := r.AddDatagram(d)
			if herr != nil {
				if err != herr || p != nil {
					t.Fatalf("bad header passed: %v", err)
				}
				continue
			}
			if err != nil {
				if _, ok := err.(DropReason); !ok || p != nil {
					t.Fatalf("error %v with payload", err)
				}
				continue
			}
			if p == nil {
				if model[h.Counter] == nil {
					model[h.Counter] = map[int][]byte{}
				}
				model[h.Counter][int(h.FragmentIdx)] = bytes.Clone(d[HeaderSize:])
				continue
			}
			if c != h.Counter || len(p) > fuzzMaxPayload || (expect != 0 && len(p) != expect) {
				t.Fatalf("payload of %d bytes for counter %d", len(p), c)
			}
			frags := model[c]
			if frags == nil {
				frags = map[int][]byte{}
			}
			frags[int(h.FragmentIdx)] = d[HeaderSize:]
			var want []byte
			for i := 0; i < int(h.TotalFragments); i++ {
				want = append(want, frags[i]...)
			}
			if !bytes.Equal(p, want) {
				t.Fatalf("counter %d: payload is not the accepted fragments in order: len %d want %d, total %d", c, len(p), len(want), h.TotalFragments)
			}
			delete(model, c)
		}
		for i := range r.slots {
			if &r.slots[i].buf[0] != &bufs[i][0] || len(r.slots[i].buf) != fuzzMaxPayload {
				t.Fatal("slot memory changed")
			}
		}
	}
}
