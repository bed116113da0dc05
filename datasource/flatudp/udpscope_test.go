package flatudp

import (
	"strings"
	"testing"

	"github.com/streamerd/streamerd/datasource/flatudp/wire"
)

// TestUDPScopeRefusal: udpscope's receiver rules, checked on lists the
// wire rules accept.
func TestUDPScopeRefusal(t *testing.T) {
	good := []string{
		"Trigger:uint8,Ia:float32,Wave:float32[16]",
		"Wave:float32[16]w",
		"A:float32[16]w,B:int16[16]w",
		"V:float32[256]",
		"A:float32[128],B:float32[127],C:uint8",
		"W:float64[4096]w",
	}
	for _, s := range good {
		l, err := wire.ParseLayout(s)
		if err != nil {
			t.Fatalf("ParseLayout(%q): %v", s, err)
		}
		if err := udpscopeRefusal(l.Signals); err != nil {
			t.Errorf("udpscopeRefusal(%q) = %v", s, err)
		}
	}
	bad := []struct {
		in, name, rule string
	}{
		{"Trigger:uint8,Wave:float32[16]w", "Trigger", "must have only waveform rows"},
		{"Wave:float32[16]w,Trigger:uint8", "Trigger", "must have only waveform rows"},
		{"A:float32[16]w,B:float32[8]w", "B", "waveform count 8 differs from 16"},
		{"V:float32[257]", "V", "channel total reaches 257, over the cap of 256"},
		{"A:float32[200],B:float32[56],C:uint8", "C", "channel total reaches 257"},
		{"Counter:uint32,Label:char8[8]", "Label", "udpscope has no text type"},
	}
	for _, c := range bad {
		l, err := wire.ParseLayout(c.in)
		if err != nil {
			t.Fatalf("ParseLayout(%q): %v (wire-valid lists only)", c.in, err)
		}
		err = udpscopeRefusal(l.Signals)
		if err == nil || !strings.Contains(err.Error(), c.rule) || !strings.Contains(err.Error(), `"`+c.name+`"`) {
			t.Errorf("udpscopeRefusal(%q) = %v, want signal %q and rule %q", c.in, err, c.name, c.rule)
		}
	}
}
