package cpu

import (
	"errors"
	"testing"
)

func TestParseMask(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Mask
	}{
		{"", 0}, {"0", 0}, {"2", 2}, {"0x2", 2}, {"0X2", 2}, {"0b10", 2},
		{" 0xff ", 0xff}, {"0xFFFFFFFFFFFFFFFF", ^Mask(0)}, {"5", Of(0, 2)},
	} {
		got, err := ParseMask(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseMask(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"x", "0x", "0b2", "-1", "0x1g", "0x10000000000000000"} {
		if _, err := ParseMask(in); !errors.Is(err, errBadMask) {
			t.Errorf("ParseMask(%q) error = %v, want errBadMask", in, err)
		}
	}
}

func TestMaskString(t *testing.T) {
	for _, m := range []Mask{0, 1, 2, 0xff, ^Mask(0)} {
		s := m.String()
		back, err := ParseMask(s)
		if err != nil || back != m {
			t.Errorf("%#x: String %q parses back to %v, %v", uint64(m), s, back, err)
		}
	}
	if got := Of(1).String(); got != "0x2" {
		t.Errorf("Of(1) = %s, want 0x2", got)
	}
	if m := Of(0, 3, 64, -1); m.Count() != 2 || !m.Has(3) || m.Has(1) || m.Has(64) {
		t.Errorf("Of(0,3,64,-1) = %v", m)
	}
}

func FuzzParseMask(f *testing.F) {
	for _, m := range []Mask{0, 1, 2, 0xdead, ^Mask(0)} {
		f.Add(m.String())
	}
	f.Add("0b101")
	f.Add("17")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMask(s)
		if err != nil {
			return
		}
		back, err := ParseMask(m.String())
		if err != nil || back != m {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, m, m.String(), back, err)
		}
	})
}
