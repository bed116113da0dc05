package config

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/record"
	"github.com/streamerd/streamerd/internal/replay"
	"github.com/streamerd/streamerd/internal/testenv"
)

// writeRecording writes a FlatUDP recording of rows datagrams of signals
// (uint32 and float32 elements only, little-endian) to path.
func writeRecording(t *testing.T, path, signals string, rows int) string {
	t.Helper()
	l, err := record.ForFlatUDP("127.0.0.1:1", signals, "little")
	if err != nil {
		t.Fatal(err)
	}
	r, err := record.Create(l, record.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for _, s := range l.Signals {
		size += s.Elements() * s.Type.Size()
	}
	d := make([]byte, size)
	t0 := time.Unix(1700000000, 0)
	for i := range rows {
		for k := 0; k < size; k += 4 {
			binary.LittleEndian.PutUint32(d[k:], uint32(i*100+k))
		}
		if err := r.Row().FlatUDP(d, t0.Add(time.Duration(i)*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		if err := r.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// replayOnly is a file whose one datasource replays run.parquet.
const replayOnly = `[App]
HTTPAddress = "127.0.0.1:0"

[[DataSources]]
Name = "R"
Class = "Replay"
File = "run.parquet"
Address = "127.0.0.1"
Speed = "max"
`

// loadIn writes text as u.toml in dir and loads it.
func loadIn(t *testing.T, dir, text string) (*File, error) {
	t.Helper()
	p := filepath.Join(dir, "u.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(p)
}

// TestReplayDataSource: a Replay's signals come from its recording, found
// beside the configuration file; its keys reach replay.Options, the
// UDPStreamer's into Options.Server; -describe's settings show them.
func TestReplayDataSource(t *testing.T) {
	dir := t.TempDir()
	rec := writeRecording(t, filepath.Join(dir, "run.parquet"), "Counter:uint32,Wave:float32[4]", 5)
	f, err := loadIn(t, dir, replayOnly+"Loop = true\nHandOffDepth = 8\nPriority = 0\nPacingCPUMask = \"0x1\"\nAllowedClients = [\"127.0.0.1\"]\n")
	if err != nil {
		t.Fatal(err)
	}
	ds := &f.DataSources[0]
	r := ds.Replay
	if r == nil || r.File != rec || r.Speed != 0 || !r.Loop || !r.WaitClient || r.Server.Name != "R" || r.Server.Address != "127.0.0.1" ||
		r.Server.Port != 44500 || r.Server.HandOffDepth != 8 || r.PacingCPUMask != 1 || len(r.Server.AllowedClients) != 1 {
		t.Fatalf("replay %+v", r)
	}
	if len(ds.Signals) != 2 || ds.Signals[0].Name != "Counter" || ds.Signals[1].Type != datasource.Float32 || ds.Signals[1].Elements() != 4 {
		t.Errorf("signals %+v", ds.Signals)
	}
	if err := replay.Validate(&r.Options); err != nil {
		t.Error(err)
	}
	got := map[string]Setting{}
	for _, s := range f.Settings(0) {
		got[s.Key] = s
	}
	for key, want := range map[string]Setting{
		"File":         {Key: "File", Value: `"` + rec + `"`},
		"Speed":        {Key: "Speed", Value: `"max"`},
		"WaitClient":   {Key: "WaitClient", Value: "true", Default: true},
		"HandOffDepth": {Key: "HandOffDepth", Value: "8"},
		"Port":         {Key: "Port", Value: "44500", Default: true},
	} {
		if got[key] != want {
			t.Errorf("setting %s: %+v, want %+v", key, got[key], want)
		}
	}
	if len(f.Warnings) != 0 {
		t.Errorf("warnings: %v", f.Warnings)
	}

	// Without AllowedClients off the loopback, the UDPStreamer's warning.
	f, err = loadIn(t, dir, strings.Replace(replayOnly, `Address = "127.0.0.1"`, `Address = "0.0.0.0"`, 1))
	if err != nil {
		t.Fatal(err)
	}
	if w := Errors(f.Warnings).Error(); !strings.Contains(w, `u.toml:4:1: DataSources[0] "R": AllowedClients: any host`) {
		t.Errorf("warnings: %q", w)
	}

	// An absolute File is taken as it is, Speed as a number.
	f, err = loadIn(t, t.TempDir(), strings.NewReplacer(`File = "run.parquet"`, `File = "`+rec+`"`, `Speed = "max"`, `Speed = 0.5`).Replace(replayOnly))
	if err != nil {
		t.Fatal(err)
	}
	if r := f.DataSources[0].Replay; r.File != rec || r.Speed != 0.5 {
		t.Errorf("replay %+v", r)
	}
}

// TestReplayErrors: a missing, foreign, cut short or unservable recording
// is an error at File naming the file; a Replay takes no signals and no
// GAM output; its keys' rules are positioned at them. Nothing panics.
func TestReplayErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeRecording(t, filepath.Join(dir, "run.parquet"), "Counter:uint32,Wave:float32[4]", 5)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, name)
	}
	write("text.parquet", []byte("time,value\n1,2\n"))
	write("cut.parquet", data[:len(data)/2])
	testenv.Mkfifo(t, filepath.Join(dir, "fifo.parquet"))
	long := strings.Repeat("L", 70)
	writeRecording(t, filepath.Join(dir, "long.parquet"), long+":uint32", 2)
	file := func(name string) []string { return []string{`File = "run.parquet"`, `File = "` + name + `"`} }
	withThread := `[[Threads]]
Name = "RT1"
Frequency = 100.0
GAMs = ["Timer"]

[[GAMs]]
Name = "Timer"
Class = "Timer"
  [[GAMs.Outputs]]
  Signal = "Counter"
  DataSource = "R"
`
	for _, c := range []struct {
		name  string
		edits []string
		add   string
		want  string
	}{
		{"missing", file("gone.parquet"), "", `u.toml:7:1: DataSources[0] "R": File: open ` + filepath.Join(dir, "gone.parquet") + `: no such file or directory`},
		{"foreign", file("text.parquet"), "", `u.toml:7:1: DataSources[0] "R": File: ` + filepath.Join(dir, "text.parquet") + `: not a Parquet file: no Parquet magic (PAR1) at the start`},
		{"cut short", file("cut.parquet"), "", `u.toml:7:1: DataSources[0] "R": File: ` + filepath.Join(dir, "cut.parquet") + `: no Parquet magic (PAR1) at the end: the footer is missing`},
		{"a directory", file("."), "", `u.toml:7:1: DataSources[0] "R": File: ` + dir + `: not a regular file (a directory)`},
		{"a named pipe", file("fifo.parquet"), "", `u.toml:7:1: DataSources[0] "R": File: ` + filepath.Join(dir, "fifo.parquet") + `: not a regular file (a named pipe)`},
		{"unservable", file("long.parquet"), "", `u.toml:7:1: DataSources[0] "R": File: ` + filepath.Join(dir, "long.parquet") + `: signal "` + long[:64] + `"…(70 bytes) of the recording cannot be served: Name: at most 63 bytes`},
		{"empty", file(""), "", `u.toml:7:1: DataSources[0] "R": File: must not be empty`},
		{"no file", file(""), "", `u.toml:7:1: DataSources[0] "R": File: must not be empty`},
		{"speed", []string{`Speed = "max"`, `Speed = 20`}, "", `u.toml:9:1: DataSources[0] "R": Speed: must be 0.1..10, got 20`},
		{"speed word", []string{`Speed = "max"`, `Speed = "fast"`}, "", `u.toml:9:1: DataSources[0] "R": Speed: expected a number 0.1..10 or "max", got string "fast"`},
		{"pacing priority", nil, "PacingPriority = 100\n", `u.toml:10:1: DataSources[0] "R": PacingPriority: must be 0..99, got 100`},
		{"network priority", nil, "Priority = 120\n", `u.toml:10:1: DataSources[0] "R": Priority: must be 0 (normal scheduling) or 1..99 (SCHED_FIFO), got 120`},
		{"signals", nil, "  [[DataSources.Signals]]\n  Name = \"X\"\n  Type = \"uint8\"\n", `u.toml:10:3: DataSources[0] "R": Signals: a Replay serves the signals of its recording (File); give no [[DataSources.Signals]]`},
		{"unknown key", nil, "Sped = 2\n", `u.toml:10:1: DataSources[0] "R": Sped: unknown key "Sped" (did you mean "Speed"?)`},
		{"GAM output", nil, withThread, `u.toml:20:3: GAMs[0] "Timer" Outputs[0]: DataSource: datasource "R" is a Replay: it serves the signals of its recording, which no GAM writes`},
		{"lock memory", []string{"[App]\n", "[App]\nLockMemory = true\n"}, "", `u.toml:2:1: App: LockMemory: applies at the start of the first RT thread, and the file has none`},
	} {
		text := replayOnly
		if c.name == "no file" {
			text = strings.Replace(text, "File = \"run.parquet\"\n", "", 1)
			c.want = `u.toml:4:1: DataSources[0] "R": File: required key is missing (expected the path of a recording)`
		} else if len(c.edits) > 0 {
			text = strings.Replace(text, c.edits[0], c.edits[1], 1)
		}
		text += c.add
		_, err := loadIn(t, dir, text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %s", c.name, err, c.want)
		}
	}

	// A file with a datasource other than Replay needs a thread.
	_, err = loadIn(t, dir, strings.Replace(baseUDPS, "[[Threads]]", "[[Unused]]", 1))
	if err == nil {
		t.Error("a UDPStreamer without threads loaded")
	}
}
