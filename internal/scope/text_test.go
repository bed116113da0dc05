package scope

import (
	"slices"
	"testing"

	flatwire "github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/internal/testenv"
)

// TestFlatUDPText: a char8 signal is listed as text, never plotted, and
// its latest text (cut at the first NUL, escaped) is what Texts returns.
func TestFlatUDPText(t *testing.T) {
	src := &FlatUDP{Listen: "127.0.0.1:0", Signals: "Counter:uint32,State:char8[8],V:float32", Rate: 100}
	h, _, _, c := flatListen(t, src)
	sigs, _ := h.Signals()
	if s := sigs[1]; !s.Text || s.Trace || s.WaveX != "" || s.Type != "char8" || s.Dims != "[8]" {
		t.Fatalf("State listed as %+v", s)
	}
	if err := h.ensureElement(1, 1, 2); err == nil {
		t.Error("an element trace of a text signal")
	}
	l, _ := flatwire.ParseLayout(src.Signals)
	for k, text := range []string{"idle\x00\x00\x00\x00", "run\t\\\x00ab"} {
		b := []byte{byte(k), 0, 0, 0}
		b = append(b, text...)
		b = append(b, 0, 0, 0x80, 0x3f)
		if len(b) != l.Size {
			t.Fatalf("datagram of %d bytes", len(b))
		}
		c.Write(b)
	}
	eventually(t, "2 datagrams", func() bool { return src.Counters().Updates == 2 })
	if got := h.Texts(); !slices.Equal(got, []SignalText{{Name: "State", Text: `run\x09\\`}}) {
		t.Errorf("Texts = %+v", got)
	}
	if _, v, ok := lastOf(h, 2); !ok || v != 1 {
		t.Errorf("V after the text: %v %v", v, ok)
	}
}

// TestPushTextNoAllocs: receiving a text signal allocates nothing.
func TestPushTextNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	h := NewHub(Limits{}, quietLog())
	l, _ := flatwire.ParseLayout("State:char8[16],V:float32")
	h.Configure(Info{Kind: "FlatUDP"}, flatSignals(l, 100))
	u := newFlatUpdate(l, 100)
	for i := range u.vals {
		u.vals[i] = 'a'
	}
	for range 100 { // let the trace's ring grow first
		u.t += 0.01
		h.push(u, false)
	}
	if n := testing.AllocsPerRun(1000, func() { u.t += 0.01; h.push(u, false) }); n != 0 {
		t.Errorf("%v allocations per push", n)
	}
}
