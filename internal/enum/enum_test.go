package enum

import "testing"

type color uint8

var colorNames = []string{"red", "green"}

func TestNameAndParse(t *testing.T) {
	if got := Name(colorNames, color(1), "color"); got != "green" {
		t.Errorf("Name(1) = %q", got)
	}
	if got := Name(colorNames, color(2), "color"); got != "color(2)" {
		t.Errorf("Name(2) = %q", got)
	}
	if c, ok := Parse[color](colorNames, "red"); !ok || c != 0 {
		t.Errorf("Parse(red) = %d, %v", c, ok)
	}
	if _, ok := Parse[color](colorNames, "Red"); ok {
		t.Error("Parse(Red): found")
	}
}
