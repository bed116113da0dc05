package marte2

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/datasource/flatudp"
)

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A UDPSender without Port sends to MARTe2's default port, FlatUDP's
// DefaultPort.
func TestDefaultPort(t *testing.T) {
	cfg := strings.Replace(readTestdata(t, "udpsender.cfg"), "Port = 44488", "", 1)
	res, err := Import("udpsender.cfg", []byte(cfg), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("\nPort = %d\n", flatudp.DefaultPort); !strings.Contains(string(res.TOML), want) {
		t.Errorf("no %q in\n%s", want, res.TOML)
	}
}

// Source maps each line of the TOML to the MARTe2 definition it comes
// from: a key to its value when the key has one, else to its object.
func TestResultSource(t *testing.T) {
	res, err := Import("udpsender.cfg", []byte(readTestdata(t, "udpsender.cfg")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(res.TOML), "\n")
	find := func(text string, after int) int {
		for i := after; i < len(lines); i++ {
			if lines[i] == text {
				return i + 1
			}
		}
		t.Fatalf("no line %q in\n%s", text, res.TOML)
		return 0
	}
	for _, tc := range []struct {
		line string
		from string // the first line of TOML to search from
		want Pos
	}{
		{"# Imported from udpsender.cfg by streamerd -import-marte2: $SenderApp (RealTimeApplication), state Running.", "", Pos{9, 1}},
		{`HTTPAddress = "127.0.0.1:0"`, "", Pos{9, 1}},             // the application
		{"[[Threads]]", "", Pos{157, 17}},                          // the RealTimeThread
		{`Frequency = 1000.0  # Hz`, "[[Threads]]", Pos{23, 21}},   // the Frequency on GAMTimer's input
		{`CPUMask = "0x2"`, "[[Threads]]", Pos{159, 28}},           // CPUs
		{`Name = "CosineGAM"`, "", Pos{44, 9}},                     // the WaveformGAM
		{`Port = 44488`, "", Pos{122, 20}},                         // the UDPSender's Port
		{`  Name = "Cosine"`, "[[DataSources]]", Pos{128, 17}},     // the declared signal
		{`  Alias = "Cosine"`, `Name = "CosineGAM"`, Pos{128, 17}}, // routed to the declared signal
	} {
		from := 0
		if tc.from != "" {
			from = find(tc.from, 0)
		}
		n := find(tc.line, from)
		if got, ok := res.Source(n); !ok || got != tc.want {
			t.Errorf("line %d %q: Source %v, %v; want %v", n, tc.line, got, ok, tc.want)
		}
	}
	for _, n := range []int{0, -1, len(lines) + 1} {
		if p, ok := res.Source(n); ok {
			t.Errorf("Source(%d) = %v, true", n, p)
		}
	}
}

// A GAM run by two threads of the imported state is an error, as in
// MARTe2; listed twice in one thread (itself and its group), it runs once.
func TestGAMInTwoThreads(t *testing.T) {
	cfg := readTestdata(t, "groups-partial.cfg")
	const slow = "Functions = { Slow.SlowClock Slow.Adc Slow.Names }"
	two := strings.Replace(cfg, slow, "Functions = { Slow.SlowClock Slow.Adc Slow.Names Fast.Tone }", 1)
	if two == cfg {
		t.Fatalf("no %s in groups-partial.cfg", slow)
	}
	_, err := Import("groups-partial.cfg", []byte(two), Options{Partial: true})
	if want := "$TwoThreads.+Functions.+Fast.+Tone is already run by thread FastThread of state Run (MARTe2 refuses a GAM in two threads of one state)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%v\nwant %s", err, want)
	}
	twice := strings.Replace(cfg, slow, "Functions = { Slow.SlowClock Slow.Adc Slow.Names Slow Slow.Adc }", 1)
	res, err := Import("groups-partial.cfg", []byte(twice), Options{Partial: true})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Import("groups-partial.cfg", []byte(cfg), Options{Partial: true})
	if string(res.TOML) != string(want.TOML) {
		t.Errorf("a GAM listed twice in a thread changes the TOML:\n%s", res.TOML)
	}
}

// lineSources finds the run a line is in across many index blocks, as a
// plain list would.
func TestLineSources(t *testing.T) {
	type run struct {
		line int
		pos  Pos
	}
	var runs []run
	r := sourceRun{write: true}
	line, srcLine := 1, 500
	for i := range 1000 {
		srcLine += (i*7919)%201 - 100 // up and down
		if srcLine < 1 {
			srcLine = 1 + i%5
		}
		p := Pos{srcLine, 1 + (i*31)%97}
		runs = append(runs, run{line, p})
		r.add(line, p)
		line += 1 + (i*13)%9
	}
	for l := 0; l < line+3; l++ {
		var want Pos
		ok := false
		for _, x := range runs {
			if x.line <= l {
				want, ok = x.pos, true
			}
		}
		if got, gotOK := r.s.find(l); got != want || gotOK != ok {
			t.Fatalf("line %d: %v, %v; want %v, %v", l, got, gotOK, want, ok)
		}
	}
	if len(r.s.data) > 6*len(runs) {
		t.Errorf("%d runs in %d bytes", len(runs), len(r.s.data))
	}
}
