package flatudp

import (
	"slices"
	"testing"
)

// windows is the reference model of IndependentThread mode: cycle k is
// sent iff some triggered cycle t has t-pre ≤ k ≤ t+post, once, in order.
func windows(trig []bool, pre, post int) []int {
	var out []int
	for k := range trig {
		for t := max(0, k-post); t <= min(len(trig)-1, k+pre); t++ {
			if trig[t] {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// run feeds trig to a selector and returns the cycles it sends.
func run(sel selector, trig []bool) []int {
	var out []int
	for seq, tr := range trig {
		from, to := sel.next(uint64(seq), tr)
		if from > to || to > uint64(seq)+1 {
			panic("bad range")
		}
		for k := from; k < to; k++ {
			out = append(out, int(k))
		}
	}
	return out
}

func trigAt(n int, at ...int) []bool {
	t := make([]bool, n)
	for _, a := range at {
		t[a] = true
	}
	return t
}

func TestSelectorEdges(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pre, post int
		trig      []bool
		want      []int
	}{
		{"first cycle", 3, 2, trigAt(10, 0), []int{0, 1, 2}},
		{"second cycle", 3, 0, trigAt(10, 1), []int{0, 1}},
		{"overlapping", 2, 3, trigAt(16, 5, 8), []int{3, 4, 5, 6, 7, 8, 9, 10, 11}},
		{"consecutive", 2, 2, trigAt(20, 10, 11, 12), []int{8, 9, 10, 11, 12, 13, 14}},
		{"pre reaches into post", 4, 1, trigAt(20, 3, 7), []int{0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{"adjacent windows", 1, 1, trigAt(10, 2, 5), []int{1, 2, 3, 4, 5, 6}},
		{"last cycle", 2, 5, trigAt(8, 7), []int{5, 6, 7}},
		{"no windows", 0, 0, trigAt(6, 1, 4), []int{1, 4}},
		{"none", 3, 3, trigAt(6), nil},
		{"all", 1, 1, trigAt(4, 0, 1, 2, 3), []int{0, 1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := run(selector{pre: uint64(tc.pre), post: uint64(tc.post)}, tc.trig)
			if !slices.Equal(got, tc.want) {
				t.Errorf("sent %v, want %v", got, tc.want)
			}
			if ref := windows(tc.trig, tc.pre, tc.post); !slices.Equal(ref, tc.want) {
				t.Errorf("reference model %v, want %v", ref, tc.want)
			}
		})
	}
}

func TestSelectorEvery(t *testing.T) {
	got := run(selector{every: true}, trigAt(5, 2))
	if !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
		t.Errorf("RealTimeThread sent %v", got)
	}
}

// FuzzSelector compares the selector with the reference model on any
// trigger pattern and window sizes.
func FuzzSelector(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 1, 1, 0, 0, 0, 1}, uint8(2), uint8(3))
	f.Add([]byte{1}, uint8(5), uint8(5))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, uint8(0), uint8(0))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 7}, uint8(20), uint8(1))
	f.Fuzz(func(t *testing.T, pattern []byte, pre, post uint8) {
		if len(pattern) > 4096 {
			pattern = pattern[:4096]
		}
		trig := make([]bool, len(pattern))
		for i, b := range pattern {
			trig[i] = b&1 != 0
		}
		got := run(selector{pre: uint64(pre % 64), post: uint64(post % 64)}, trig)
		want := windows(trig, int(pre%64), int(post%64))
		if !slices.Equal(got, want) {
			t.Fatalf("pre %d post %d trig %v: sent %v, want %v", pre%64, post%64, trig, got, want)
		}
	})
}
