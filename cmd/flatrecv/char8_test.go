package main

import (
	"encoding/json"
	"testing"

	"github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/internal/testenv"
)

// TestChar8AsText: a char8[N] signal is one column of text, cut at the
// first NUL and escaped, in CSV and JSON alike, over a real socket.
func TestChar8AsText(t *testing.T) {
	const sigs = "Counter:uint32,Label:char8[12],V:uint8[2]"
	dg := []byte{7, 0, 0, 0, 'a', ',', '"', 'b', '\\', '\t', 0xff, 0, 'x', 'y', 'z', 0, 1, 2}
	s := start(t, "-signals", sigs, "-n", "1")
	s.sender.Write(dg)
	if code := s.wait(t); code != 0 {
		t.Fatalf("exit %d: %s", code, s.stderr.String())
	}
	want := "Counter,Label,V[0],V[1]\n" + `7,"a,""b\\\x09\xff",1,2` + "\n"
	if got := s.stdout.String(); got != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", got, want)
	}

	l := layout(t, sigs)
	row := string(newRowWriter(l, true).row(dg, wire.Little))
	if want := `{"Counter":7,"Label":"a,\"b\\\\\\x09\\xff","V":[1,2]}` + "\n"; row != want {
		t.Errorf("JSON:\n%s\nwant:\n%s", row, want)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(row), &obj); err != nil || obj["Label"] != `a,"b\\\x09\xff` {
		t.Errorf("JSON decodes to %q (%v)", obj["Label"], err)
	}
	full := []byte{1, 0, 0, 0, 'n', 'o', ' ', 'N', 'U', 'L', ' ', 'h', 'e', 'r', 'e', '!', 0, 0}
	if got := string(newRowWriter(l, false).row(full, wire.Little)); got != "1,no NUL here!,0,0\n" {
		t.Errorf("a text filling its signal: %q", got)
	}
}

func TestChar8RowNoAllocs(t *testing.T) {
	testenv.SkipIfRace(t)
	l := layout(t, "Counter:uint32,Label:char8[12],V:uint8[2]")
	dg := []byte{7, 0, 0, 0, 'a', ',', '"', 'b', '\\', '\t', 0xff, 0, 'x', 'y', 'z', 0, 1, 2}
	for _, asJSON := range []bool{false, true} {
		w := newRowWriter(l, asJSON)
		w.row(dg, wire.Little) // grows the buffers once
		if n := testing.AllocsPerRun(100, func() { w.row(dg, wire.Little) }); n != 0 {
			t.Errorf("json %v: %v allocations per row", asJSON, n)
		}
	}
}
