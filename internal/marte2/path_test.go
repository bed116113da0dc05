package marte2

import (
	"fmt"
	"strings"
	"testing"
)

// A path is shown in full when short; a long name is cut, and a deep path
// keeps its first element and its last ones, so that every message about
// an object stays small.
func TestPathShown(t *testing.T) {
	var p *objPath
	for _, n := range []string{"$App", "+Functions", "+G"} {
		p = p.child(n)
	}
	if got := p.String(); got != "$App.+Functions.+G" {
		t.Errorf("short path: %s", got)
	}
	if got := p.show("OutputSignals", "O1"); got != "$App.+Functions.+G.OutputSignals.O1" {
		t.Errorf("with elements: %s", got)
	}
	long := "+" + strings.Repeat("é", 20) // 41 bytes
	if got := p.child(long).String(); got != "$App.+Functions.+G.+"+strings.Repeat("é", 15)+"…" {
		t.Errorf("long name: %s", got)
	}
	var deep *objPath
	for i := range 20 {
		deep = deep.child("+L" + strings.Repeat("N", i))
	}
	want := "+L.….+L" + strings.Repeat("N", 16) + ".+L" + strings.Repeat("N", 17) + ".+L" + strings.Repeat("N", 18) + ".+L" + strings.Repeat("N", 19) + ".K"
	if got := deep.show("K"); got != want {
		t.Errorf("deep path:\n got %s\nwant %s", got, want)
	}
	for _, n := range []int{1, 10, MaxDepth} {
		var p *objPath
		for range n {
			p = p.child("+" + strings.Repeat("N", MaxTokenLen-1))
		}
		if got := p.show("OutputSignals", strings.Repeat("S", MaxTokenLen)); len(got) > maxShownPath+maxShownCut {
			t.Errorf("%d names of %d bytes: %d bytes shown: %s", n, MaxTokenLen, len(got), got)
		}
	}
}

// A path in a message is written as String returns it; with a verb other
// than %s or %v, String is formatted.
func TestPathFormat(t *testing.T) {
	p := (*objPath)(nil).child("$App").child("+G")
	for _, tc := range []struct{ format, want string }{
		{"%s", "$App.+G"}, {"%v", "$App.+G"}, {"%q", `"$App.+G"`}, {"%10s", "   $App.+G"}, {"[%-8v]", "[$App.+G ]"},
	} {
		if got := fmt.Sprintf(tc.format, p); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.format, got, tc.want)
		}
	}
}
