package enum

import "testing"

func TestLookup(t *testing.T) {
	if c, err := Lookup[color](colorNames, "green", "color"); err != nil || c != 1 {
		t.Errorf("Lookup(green) = %d, %v", c, err)
	}
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"red"}, `unknown color "blue" (want red)`},
		{[]string{"red", "green"}, `unknown color "blue" (want red or green)`},
		{[]string{"a", "b", "c", "d"}, `unknown color "blue" (want a, b, c or d)`},
	} {
		if _, err := Lookup[color](c.names, "blue", "color"); err == nil || err.Error() != c.want {
			t.Errorf("Lookup(blue) in %q: %v, want %s", c.names, err, c.want)
		}
	}
}
