package frame

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// updatePayload is the payload of update counter: distinct for every counter.
func updatePayload(counter uint32, size int) []byte {
	b := pattern(size)
	for i := 0; i+4 <= size; i += 97 {
		binary.LittleEndian.PutUint32(b[i:], counter)
	}
	return b
}

// buildWire returns the datagrams of one update back to back.
func buildWire(l Layout, typ PacketType, counter uint32, payload []byte) []byte {
	wire := make([]byte, l.WireSize())
	l.PutPayload(wire, payload)
	l.PutHeaders(wire, typ, counter)
	return wire
}

// datagrams returns the datagrams of one update as separate slices.
func datagrams(l Layout, typ PacketType, counter uint32, payload []byte) [][]byte {
	wire := buildWire(l, typ, counter, payload)
	ds := make([][]byte, l.Fragments)
	for i := range ds {
		ds[i] = l.Datagram(wire, i)
	}
	return ds
}

func mustReassembler(t testing.TB, cfg ReassemblerConfig) *Reassembler {
	t.Helper()
	r, err := NewReassembler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReassemblyShuffled feeds updates in interleaved groups of three counters,
// shuffled and with duplicates (some after completion), across the counter wrap.
func TestReassemblyShuffled(t *testing.T) {
	const size, maxp = 8016, 1400
	l, _ := NewLayout(size, maxp)
	configs := map[string]func(*Reassembler){
		"learned chunk": func(*Reassembler) {},
		"expected size": func(r *Reassembler) { r.SetExpectedPayload(size) },
	}
	for name, setup := range configs {
		for _, chunk := range []int{0, l.Chunk} {
			t.Run(name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, uint64(chunk)))
				r := mustReassembler(t, ReassemblerConfig{Type: Data, MaxPayload: size, Chunk: chunk, InFlight: 4})
				setup(r)
				seen := map[uint32]int{}
				start := uint32(0xFFFFFFF0)
				const groups = 20
				dups := 0
				for g := 0; g < groups; g++ {
					var ds [][]byte
					for k := uint32(0); k < 3; k++ {
						c := start + uint32(g)*3 + k
						ds = append(ds, datagrams(l, Data, c, updatePayload(c, size))...)
					}
					for i := 0; i < 5; i++ {
						ds = append(ds, ds[rng.IntN(len(ds))])
						dups++
					}
					rng.Shuffle(len(ds), func(i, j int) { ds[i], ds[j] = ds[j], ds[i] })
					for _, d := range ds {
						p, c, err := r.AddDatagram(d)
						if err != nil {
							if err != DropDuplicate {
								t.Fatalf("counter %d: %v", c, err)
							}
							continue
						}
						if p == nil {
							continue
						}
						seen[c]++
						if !bytes.Equal(p, updatePayload(c, size)) {
							t.Fatalf("counter %#x: wrong payload", c)
						}
					}
				}
				if len(seen) != groups*3 {
					t.Fatalf("%d updates completed, want %d", len(seen), groups*3)
				}
				for c, n := range seen {
					if n != 1 {
						t.Fatalf("counter %#x completed %d times", c, n)
					}
				}
				st := r.Stats()
				if st.Completed != groups*3 || st.Evicted != 0 || st.Drops[DropDuplicate] != uint64(dups) {
					t.Fatalf("stats %+v, %d duplicates sent", st, dups)
				}
			})
		}
	}
}

func TestReassemblyLastFirst(t *testing.T) {
	l, _ := NewLayout(4012, 1400)
	payload := updatePayload(5, 4012)
	ds := datagrams(l, Data, 5, payload)
	r := mustReassembler(t, ReassemblerConfig{Type: Data, MaxPayload: 8192})
	for _, i := range []int{2, 1, 0} {
		p, c, err := r.AddDatagram(ds[i])
		if err != nil || (i != 0 && p != nil) {
			t.Fatal(i, err)
		}
		if i == 0 && (c != 5 || !bytes.Equal(p, payload)) {
			t.Fatal("wrong payload")
		}
	}
}

func TestReassemblySingleFragment(t *testing.T) {
	r := mustReassembler(t, ReassemblerConfig{Type: Config, MaxPayload: 1000})
	cfg, _ := AppendConfig(nil, burstSignals())
	d := append(AppendHeader(nil, Header{Type: Config, TotalFragments: 1, PayloadBytes: uint32(len(cfg))}), cfg...)
	p, c, err := r.AddDatagram(d)
	if err != nil || c != 0 || !bytes.Equal(p, cfg) {
		t.Fatal(err)
	}
	if _, err := ParseConfig(p); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.AddDatagram(d); err != DropDuplicate {
		t.Fatalf("repeat: %v", err)
	}
	r.Reset() // reconnect: the producer restarts its counter
	if p, _, err := r.AddDatagram(d); err != nil || p == nil {
		t.Fatalf("after Reset: %v", err)
	}
}

func TestReassemblyEviction(t *testing.T) {
	l, _ := NewLayout(300, 117) // 3 fragments of 100
	r := mustReassembler(t, ReassemblerConfig{Type: Data, MaxPayload: 300, InFlight: 2, MaxAge: 3})
	old := datagrams(l, Data, 10, updatePayload(10, 300))
	if _, _, err := r.AddDatagram(old[0]); err != nil {
		t.Fatal(err)
	}
	// Counters 11..13 complete; 13 is 3 ahead of 10: not yet too old.
	for c := uint32(11); c <= 13; c++ {
		for _, d := range datagrams(l, Data, c, updatePayload(c, 300)) {
			if _, _, err := r.AddDatagram(d); err != nil {
				t.Fatal(err)
			}
		}
	}
	if r.Stats().Evicted != 0 {
		t.Fatal("evicted too early")
	}
	if _, _, err := r.AddDatagram(old[1]); err != nil {
		t.Fatal(err)
	}
	// 14 makes 10 too old.
	for _, d := range datagrams(l, Data, 14, updatePayload(14, 300)) {
		r.AddDatagram(d)
	}
	if st := r.Stats(); st.Evicted != 1 || st.Completed != 4 {
		t.Fatalf("stats %+v", st)
	}
	if _, _, err := r.AddDatagram(old[2]); err != DropStale {
		t.Fatalf("fragment of evicted update: %v", err)
	}
	// Slots full: two incomplete newer updates; an older counter finds no slot,
	// a newer one evicts the oldest.
	a := datagrams(l, Data, 20, updatePayload(20, 300))
	b := datagrams(l, Data, 21, updatePayload(21, 300))
	r.AddDatagram(a[0])
	r.AddDatagram(b[0])
	if _, _, err := r.AddDatagram(datagrams(l, Data, 19, updatePayload(19, 300))[0]); err != DropStale {
		t.Fatalf("older counter with slots full: %v", err)
	}
	if _, _, err := r.AddDatagram(datagrams(l, Data, 22, updatePayload(22, 300))[0]); err != nil {
		t.Fatal(err)
	}
	if st := r.Stats(); st.Evicted != 2 {
		t.Fatalf("stats %+v", st)
	}
	r.AddDatagram(b[1])
	if p, c, _ := r.AddDatagram(b[2]); c != 21 || !bytes.Equal(p, updatePayload(21, 300)) {
		t.Fatal("21 did not survive")
	}
}

func TestReassemblyRejects(t *testing.T) {
	l, _ := NewLayout(300, 117)
	ds := datagrams(l, Data, 1, updatePayload(1, 300))
	hdr := func(d []byte) Header { h, _, _ := ParseHeader(d); return h }
	r := mustReassembler(t, ReassemblerConfig{Type: Data, MaxPayload: 300})
	check := func(name string, h Header, frag []byte, want DropReason) {
		t.Helper()
		before := r.Stats().Drops[want]
		if want == 0 {
			if _, _, err := r.Add(h, frag); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			return
		}
		if p, _, err := r.Add(h, frag); err != want || p != nil {
			t.Errorf("%s: %v, want %v", name, err, error(want))
		}
		if r.Stats().Drops[want] != before+1 {
			t.Errorf("%s: not counted", name)
		}
	}
	h0 := hdr(ds[0])
	check("wrong type", Header{Type: Config, TotalFragments: 1}, nil, DropWrongType)
	check("length lies", h0, ds[0][HeaderSize+1:], DropMalformed)
	check("idx >= total", Header{Type: Data, FragmentIdx: 3, TotalFragments: 3}, nil, DropMalformed)
	check("empty non-last", Header{Type: Data, TotalFragments: 3}, nil, DropMalformed)
	big := make([]byte, 301)
	check("fragment > MaxPayload", Header{Type: Data, TotalFragments: 1, PayloadBytes: 301}, big, DropTooLarge)
	check("too many fragments", Header{Type: Data, TotalFragments: 301, PayloadBytes: 1}, big[:1], DropTooLarge)
	check("non-last implies > MaxPayload", Header{Type: Data, TotalFragments: 4, PayloadBytes: 100}, big[:100], DropTooLarge)
	if _, _, err := r.AddDatagram(ds[0]); err != nil {
		t.Fatal(err)
	}
	check("duplicate", h0, ds[0][HeaderSize:], DropDuplicate)
	check("other total", Header{Type: Data, Counter: 1, FragmentIdx: 1, TotalFragments: 2, PayloadBytes: 100}, big[:100], DropInconsistent)
	check("other chunk", Header{Type: Data, Counter: 1, FragmentIdx: 1, TotalFragments: 3, PayloadBytes: 99}, big[:99], DropInconsistent)
	check("last > chunk", Header{Type: Data, Counter: 1, FragmentIdx: 2, TotalFragments: 3, PayloadBytes: 101}, big[:101], DropInconsistent)
	r.AddDatagram(ds[2])
	if p, c, err := r.AddDatagram(ds[1]); err != nil || c != 1 || !bytes.Equal(p, updatePayload(1, 300)) {
		t.Fatalf("update 1 after rejects: %v", err)
	}

	// Stashed last fragment that a later chunk size contradicts.
	check("stash first", Header{Type: Data, Counter: 2, FragmentIdx: 2, TotalFragments: 3, PayloadBytes: 100}, big[:100], 0)
	check("chunk below stashed last", Header{Type: Data, Counter: 2, FragmentIdx: 0, TotalFragments: 3, PayloadBytes: 50}, big[:50], DropInconsistent)

	if err := r.SetExpectedPayload(301); err == nil {
		t.Fatal("expected size above MaxPayload accepted")
	}
	r.SetExpectedPayload(300)
	check("single of wrong size", Header{Type: Data, Counter: 3, TotalFragments: 1, PayloadBytes: 10}, big[:10], DropInconsistent)
	check("chunk inconsistent with size", Header{Type: Data, Counter: 3, TotalFragments: 3, PayloadBytes: 50}, big[:50], DropInconsistent)
	check("last inconsistent with size", Header{Type: Data, Counter: 3, FragmentIdx: 2, TotalFragments: 3, PayloadBytes: 99}, big[:99], DropInconsistent)

	r = mustReassembler(t, ReassemblerConfig{Type: Data, MaxPayload: 300, Chunk: 100})
	check("configured chunk", Header{Type: Data, TotalFragments: 3, PayloadBytes: 99}, big[:99], DropInconsistent)
	check("configured chunk, last", Header{Type: Data, FragmentIdx: 2, TotalFragments: 3, PayloadBytes: 101}, big[:101], DropInconsistent)
	check("configured chunk, total", Header{Type: Data, FragmentIdx: 0, TotalFragments: 4, PayloadBytes: 100}, big[:100], DropTooLarge)

	check("configured chunk, single", Header{Type: Data, TotalFragments: 1, PayloadBytes: 101}, big[:101], DropInconsistent)

	// SetExpectedPayload discards in-flight updates; kept fragments report their counter.
	r = mustReassembler(t, ReassemblerConfig{Type: Data, MaxPayload: 300})
	ds7 := datagrams(l, Data, 7, updatePayload(7, 300))
	r.AddDatagram(ds7[0])
	if p, c, err := r.AddDatagram(ds7[1]); p != nil || c != 7 || err != nil {
		t.Fatalf("kept fragment: %v %d %v", p, c, err)
	}
	r.SetExpectedPayload(300)
	if p, _, err := r.AddDatagram(ds7[2]); p != nil || err != nil {
		t.Fatalf("update survived SetExpectedPayload: %v", err)
	}
	r.AddDatagram(ds7[0])
	if p, _, _ := r.AddDatagram(ds7[1]); !bytes.Equal(p, updatePayload(7, 300)) {
		t.Fatal("update 7 after resend")
	}

	for _, bad := range []ReassemblerConfig{{MaxPayload: 0}, {MaxPayload: 10, Chunk: -1}, {MaxPayload: 10, InFlight: -1}, {MaxPayload: -1}} {
		if _, err := NewReassembler(bad); err == nil {
			t.Errorf("NewReassembler(%+v) accepted", bad)
		}
	}
}

// TestReassemblyResyncFarBehind: a stray update with a far newer counter
// must not make every later genuine fragment stale.
func TestReassemblyResyncFarBehind(t *testing.T) {
	l, _ := NewLayout(300, 117) // 3 fragments of 100
	r := mustReassembler(t, ReassemblerConfig{Type: Data, MaxPayload: 300})
	add := func(c uint32) error {
		for _, d := range datagrams(l, Data, c, updatePayload(c, 300)) {
			if _, _, err := r.AddDatagram(d); err != nil {
				return err
			}
		}
		return nil
	}
	for _, c := range []uint32{100, 0x7FFFFFF0} {
		if err := add(c); err != nil {
			t.Fatal(err)
		}
	}
	// ReorderWindow behind the newest is still stale; 101, far further
	// behind, restarts the history.
	if err := add(0x7FFFFFF0 - ReorderWindow); err != DropStale {
		t.Fatalf("a counter ReorderWindow behind: %v, want DropStale", err)
	}
	for c := uint32(101); c < 110; c++ {
		if err := add(c); err != nil {
			t.Fatalf("counter %d after the stray: %v", c, err)
		}
	}
	if st := r.Stats(); st.Resyncs != 1 || st.Completed != 11 {
		t.Fatalf("stats %+v", st)
	}
}

// Pending counts the updates of which some fragments came and not all.
func TestReassemblyPending(t *testing.T) {
	l, _ := NewLayout(4012, 1400)
	r := mustReassembler(t, ReassemblerConfig{Type: Data, MaxPayload: 8192})
	a, b := datagrams(l, Data, 1, updatePayload(1, 4012)), datagrams(l, Data, 2, updatePayload(2, 4012))
	r.AddDatagram(a[0])
	r.AddDatagram(b[1])
	if n := r.Pending(); n != 2 {
		t.Fatalf("pending %d, want 2", n)
	}
	r.AddDatagram(a[1])
	r.AddDatagram(a[2])
	if n := r.Pending(); n != 1 {
		t.Fatalf("pending %d after update 1 completed, want 1", n)
	}
	r.Reset()
	if n := r.Pending(); n != 0 {
		t.Fatalf("pending %d after Reset", n)
	}
}
