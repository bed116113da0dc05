package wire

import "testing"

func TestSequenceGate(t *testing.T) {
	var g SequenceGate
	type step struct {
		c    uint32
		ok   bool
		lost uint32
	}
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
		{0x80000004, false, 0},         // delta = -2^31: stale
		{0x80000003, true, 0x7FFFFFFE}, // delta = 2^31-1
	}
	for i, s := range steps {
		lost, ok := g.Accept(s.c)
		if ok != s.ok || lost != s.lost {
			t.Fatalf("step %d counter %#x: ok %v lost %d, want %v %d", i, s.c, ok, lost, s.ok, s.lost)
		}
	}
	if g.Dropped != 7 || g.Accepted != 7 {
		t.Fatalf("accepted %d dropped %d", g.Accepted, g.Dropped)
	}
	g.Reset()
	if lost, ok := g.Accept(0); !ok || lost != 0 {
		t.Fatal("first counter after Reset refused")
	}
	if _, ok := g.Accept(0); ok {
		t.Fatal("duplicate after Reset accepted")
	}
}
