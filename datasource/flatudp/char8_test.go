package flatudp

import (
	"slices"
	"testing"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/internal/cli"
	"github.com/streamerd/streamerd/internal/testenv"
)

// TestChar8BitExact: a char8[8] signal leaves as its 8 bytes, in place,
// in either byte order (only the numbers are swapped), and its signals
// string row reads Label:char8[8].
func TestChar8BitExact(t *testing.T) {
	for _, order := range []wire.ByteOrder{wire.Little, wire.Big} {
		h := start(t, Config{ExecutionMode: realTimeThread, ByteOrder: order, Signals: []datasource.Signal{
			{Name: "Counter", Type: datasource.Uint32},
			{Name: "Label", Type: datasource.Char8, NumberOfDimensions: 1, NumberOfElements: 8},
			{Name: "Code", Type: datasource.Uint16},
		}}, nil)
		if got := h.s.SignalsString(); got != "Counter:uint32,Label:char8[8],Code:uint16" {
			t.Fatalf("signals string %q", got)
		}
		copy(testenv.Must(h.s.GetSignalMemoryBuffer(0)), []byte{1, 2, 3, 4})
		copy(testenv.Must(h.s.GetSignalMemoryBuffer(1)), "shot 9\x00\x00")
		copy(testenv.Must(h.s.GetSignalMemoryBuffer(2)), []byte{5, 6})
		b := h.sendOne()
		want := []byte{1, 2, 3, 4, 's', 'h', 'o', 't', ' ', '9', 0, 0, 5, 6}
		if order == wire.Big {
			want = []byte{4, 3, 2, 1, 's', 'h', 'o', 't', ' ', '9', 0, 0, 6, 5}
		}
		if !slices.Equal(b, want) {
			t.Errorf("%v: datagram\n% x\nwant\n% x", order, b, want)
		}
		if text := cli.AppendText(nil, h.l.Field(b, 1)); string(text) != "shot 9" {
			t.Errorf("%v: text %q", order, text)
		}
	}
}
