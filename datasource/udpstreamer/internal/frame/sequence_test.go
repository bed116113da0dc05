package frame

import "testing"

func TestSequenceGate(t *testing.T) {
	var g SequenceGate
	type step struct {
		c    uint32
		ok   bool
		lost uint32
	}
	four := uint32(4)
	steps := []step{
		{0xFFFFFFFD, true, 0}, // first after reset: accepted whatever it is
		{0xFFFFFFFE, true, 0},
		{0xFFFFFFFE, false, 0}, // duplicate
		{0xFFFFFFFD, false, 0}, // reordered, stale
		{0xFFFFFFFF, true, 0},
		{0, true, 0}, // across the wrap
		{0xFFFFFFFF, false, 0},
		{0, false, 0},
		{3, true, 2}, // 1 and 2 lost
		{2, false, 0},
		{1, false, 0},
		{4, true, 0},
		{four - ReorderWindow, false, 0},    // as far back as reordering goes: stale
		{4 + MaxCounterJump, true, 0xFFFFF}, // as far ahead as loss goes
		{4 + MaxCounterJump - 5, false, 0},  // stale
		{5 + MaxCounterJump, true, 0},
	}
	for i, s := range steps {
		lost, ok := g.Accept(s.c)
		if ok != s.ok || lost != s.lost {
			t.Fatalf("step %d counter %#x: ok %v lost %d, want %v %d", i, s.c, ok, lost, s.ok, s.lost)
		}
	}
	if g.Dropped != 8 || g.Accepted != 8 || g.Implausible != 0 || g.Resyncs != 0 {
		t.Fatalf("accepted %d dropped %d implausible %d resyncs %d", g.Accepted, g.Dropped, g.Implausible, g.Resyncs)
	}
	g.Reset()
	if lost, ok := g.Accept(0); !ok || lost != 0 {
		t.Fatal("first counter after Reset refused")
	}
	if _, ok := g.Accept(0); ok {
		t.Fatal("duplicate after Reset accepted")
	}
}

// TestSequenceGateImplausible: one stray counter far from the sequence is
// held and dropped while the sequence goes on; two in a row restart it.
func TestSequenceGateImplausible(t *testing.T) {
	type step struct {
		c    uint32
		lost uint32
		v    Verdict
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"stray far ahead", []step{{100, 0, Advance}, {0x7FFFFFF0, 0, Held}, {101, 0, Advance}, {102, 0, Advance}}},
		{"stray far behind", []step{{5000, 0, Advance}, {10, 0, Held}, {5001, 0, Advance}}},
		{"stray just past the bounds", []step{{0, 0, Advance}, {MaxCounterJump + 1, 0, Held}, {1, 0, Advance}}},
		{"restart at 0", []step{{5000, 0, Advance}, {0, 0, Held}, {1, 1, Resync}, {2, 0, Advance}, {4, 1, Advance}}},
		{"restart with loss", []step{{5000, 0, Advance}, {0, 0, Held}, {3, 3, Resync}, {4, 0, Advance}}},
		{"jump ahead for good", []step{{7, 0, Advance}, {0x80000000, 0, Held}, {0x80000001, 1, Resync}, {8, 0, Held}, {0x80000002, 0, Advance}}},
		{"two unrelated strays", []step{{7, 0, Advance}, {0x40000000, 0, Held}, {0x90000000, 0, Held}, {8, 0, Advance}}},
		{"stray behind the held one", []step{{7, 0, Advance}, {0x40000000, 0, Held}, {0x40000000, 0, Held}, {0x3FFFFFFF, 0, Held}, {0x40000000, 1, Resync}}},
	} {
		var g SequenceGate
		for i, s := range tc.steps {
			lost, v := g.Step(s.c)
			if v != s.v || lost != s.lost {
				t.Fatalf("%s: step %d counter %#x: verdict %d lost %d, want %d %d", tc.name, i, s.c, v, lost, s.v, s.lost)
			}
		}
	}
	var g SequenceGate
	for _, c := range []uint32{1, 0x7FFFFFF0, 2, 1 << 31, 1<<31 + 1, 1<<31 + 2} {
		g.Accept(c)
	}
	if g.Implausible != 2 || g.Resyncs != 1 || g.Accepted != 4 || g.Lost != 1 {
		t.Errorf("implausible %d resyncs %d accepted %d lost %d", g.Implausible, g.Resyncs, g.Accepted, g.Lost)
	}
}
