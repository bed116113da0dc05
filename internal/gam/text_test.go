package gam

import (
	"errors"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/testenv"
)

func TestText(t *testing.T) {
	g, err := NewText("Label", "shot 42", 10)
	if err != nil {
		t.Fatal(err)
	}
	o := g.Outputs()[0]
	if o.Type != datasource.Char8 || o.Elements != 10 || string(o.Mem) != "shot 42\x00\x00\x00" {
		t.Fatalf("output %v[%d] %q", o.Type, o.Elements, o.Mem)
	}
	if err := g.Execute(); err != nil || string(o.Mem) != "shot 42\x00\x00\x00" {
		t.Errorf("after Execute: %v %q", err, o.Mem)
	}
	if g, err := NewText("Full", "abc", 4); err != nil || string(g.Outputs()[0].Mem) != "abc\x00" {
		t.Errorf("a text filling the signal but its NUL: %v", err)
	}
	for _, tc := range []struct {
		text  string
		n     int
		param string
		rule  string
	}{
		{"abcd", 4, "Text", "4 bytes do not fit a char8[4] signal with the NUL that ends them (at most 3)"},
		{"a\x00b", 8, "Text", "NUL"},
		{"", 0, "Elements", "must be 1.."},
	} {
		_, err := NewText("G", tc.text, tc.n)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Parameter != tc.param || !strings.Contains(ce.Rule, tc.rule) {
			t.Errorf("NewText(%q, %d) = %v, want %s: %s", tc.text, tc.n, err, tc.param, tc.rule)
		}
	}
}

func TestTextExecuteNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	g, _ := NewText("Label", "x", 8)
	if n := testing.AllocsPerRun(1000, func() { g.Execute() }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

func TestWaveformRefusesChar8(t *testing.T) {
	_, err := NewWaveform("W", WaveformConfig{Shape: Constant, Type: datasource.Char8, Elements: 8})
	if err == nil || !strings.Contains(err.Error(), "char8 is text") {
		t.Errorf("char8 waveform: %v", err)
	}
}
