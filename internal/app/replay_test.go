package app

import (
	"encoding/binary"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/config"
	"github.com/streamerd/streamerd/internal/record"
	"github.com/streamerd/streamerd/internal/replay"
	"github.com/streamerd/streamerd/internal/replay/replaytest"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/quant"
)

// recordingDoc returns the TOML example and the -describe excerpt of
// docs/recording.md's "In a configuration file".
func recordingDoc(t *testing.T) (example string, describe []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "recording.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "### In a configuration file")
	if !ok {
		t.Fatal("docs/recording.md has no section \"In a configuration file\"")
	}
	m := regexp.MustCompile("(?s)```toml\n(.*?)```.*?```\n(datasource .*?)```").FindStringSubmatch(sec)
	if m == nil {
		t.Fatal("docs/recording.md, \"In a configuration file\": no toml example followed by a -describe excerpt")
	}
	for line := range strings.Lines(m[2]) {
		if line = strings.TrimRight(line, "\n"); strings.TrimSpace(line) != "…" {
			describe = append(describe, line)
		}
	}
	return m[1], describe
}

// replace applies old→new replacements to s; each old must occur.
func replace(t *testing.T, s string, pairs ...string) string {
	t.Helper()
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("%q not in\n%s", pairs[i], s)
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

// TestReplayDataSourceEndToEnd records a live stream, loads the example
// of docs/recording.md naming that recording, runs the application and
// compares every update a client receives with the file's row: every
// element of every signal (the wire code of a quantised one) and the
// loss before it. -describe shows the recording's signals as the docs
// do; /status the replay's progress; /force refuses its signals.
func TestReplayDataSourceEndToEnd(t *testing.T) {
	dir := t.TempDir()
	const n = 200
	gaps := map[int]uint32{50: 2, 120: 5}
	replaytest.Record(t, filepath.Join(dir, "shot.parquet"), n, gaps)
	layout, rows := replaytest.Rows(t, filepath.Join(dir, "shot.parquet"))
	if len(rows) != n {
		t.Fatalf("%d rows recorded", len(rows))
	}

	example, describe := recordingDoc(t)
	port := testenv.FreeUDPPort(t)
	text := replace(t, example, `HTTPAddress = "127.0.0.1:9106"`, `HTTPAddress = "127.0.0.1:0"`,
		`ScopeAddress = "127.0.0.1:8090"`, `ScopeAddress = "127.0.0.1:0"`,
		"Port = 44600", "Port = "+strconv.Itoa(port), "Loop = true", "Loop = false",
		// The example plays at once, for its scope; the client here
		// must see the recording from its first row.
		"WaitClient = false", "WaitClient = true")
	f := loadAt(t, filepath.Join(dir, "replay.toml"), text)
	a, err := Build(f, metrics.NewSet(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	var desc strings.Builder
	a.Describe(&desc)
	for _, line := range describe {
		if !strings.Contains(desc.String(), line+"\n") {
			t.Errorf("-describe lacks the line of docs/recording.md\n%s\nit printed\n%s", line, desc.String())
		}
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	if _, err := a.Force("Shot.Counter", "1"); err == nil || !strings.Contains(err.Error(), "plays a recording") {
		t.Errorf("force on a replayed signal: %v", err)
	}
	if a.ScopeAddr() == "" {
		t.Error("no scope for the Replay")
	}

	c, cfg := replaytest.Connect(t, "127.0.0.1:"+strconv.Itoa(port))
	if len(cfg.Signals) != len(layout.Signals) {
		t.Fatalf("CONFIG of %d signals, the recording has %d", len(cfg.Signals), len(layout.Signals))
	}
	byCounter := map[uint64]int{}
	counterCol := layout.FirstColumn(1) // replaytest's Counter
	for i, r := range rows {
		byCounter[r[counterCol]] = i
	}
	lostCol := layout.Column(record.ColLost)
	var u client.Update
	for got := 0; got < n; got++ {
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		if err := c.Next(&u); err != nil {
			if errors.Is(err, client.ErrSilence) {
				got--
				continue
			}
			t.Fatalf("after %d updates: %v", got, err)
		}
		i, ok := byCounter[binary.LittleEndian.Uint64(u.Raw(1))]
		if !ok {
			t.Fatalf("update %d: Counter %#x is in no row", got, binary.LittleEndian.Uint64(u.Raw(1)))
		}
		if i != got {
			t.Errorf("update %d carries row %d", got, i)
		}
		if !u.SessionStart && uint64(u.Lost) != rows[i][lostCol] {
			t.Errorf("row %d: %d lost before it, recorded %d", i, u.Lost, rows[i][lostCol])
		}
		for s := range layout.Signals {
			sig := &layout.Signals[s]
			col, size := layout.FirstColumn(s), sig.Type.Size()
			if sig.QuantizedType != quant.None {
				col, size = layout.CodeColumn(s), sig.QuantizedType.Size()
			}
			wire := u.Raw(s)
			for k := range sig.Elements() {
				if got, want := wire[k*size:(k+1)*size], le(rows[i][col+k], size); string(got) != string(want) {
					t.Fatalf("row %d, %s element %d: received % x, recorded % x", i, sig.Name, k, got, want)
				}
			}
		}
	}

	testenv.Eventually(t, "the end of the replay", 20*time.Second, func() bool {
		return a.Status().DataSources[0].(replay.Status).Finished
	})
	st := a.Status().DataSources[0].(replay.Status)
	if st.Class != config.ClassReplay || st.File != filepath.Join(dir, "shot.parquet") || st.FileRows != n || st.Rows != n ||
		st.Position != n || st.Loops != 1 || st.Lost != 7 || st.Error != "" || st.PositionSeconds <= 0 {
		t.Errorf("status %+v", st)
	}
	_, body := testenv.HTTPGet(t, "http://"+a.HTTPAddr()+"/status")
	for _, want := range []string{`"class": "Replay"`, `"connected": true`, `"position": 200`, `"file_rows": 200`, `"finished": true`} {
		if !strings.Contains(body, want) {
			t.Errorf("/status lacks %s:\n%s", want, body)
		}
	}
}

// loadAt writes the configuration text to path and loads it, so its
// relative paths are relative to path's directory.
func loadAt(t *testing.T, path, text string) *config.File {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// le is the low size bytes of v, little-endian.
func le(v uint64, size int) []byte {
	b := binary.LittleEndian.AppendUint64(nil, v)
	return b[:size]
}

// TestReplayBesideLiveDataSources: a Replay beside a thread, its GAMs and
// a live UDPStreamer gets no broker (its own thread synchronises it), and
// serves as the live one does, to a client and to the web scope.
func TestReplayBesideLiveDataSources(t *testing.T) {
	dir := t.TempDir()
	replaytest.Record(t, filepath.Join(dir, "r.parquet"), 20, nil)
	text := readTestdata(t, "replay_beside.toml")
	text = replace(t, text, "Port = 44700", "Port = "+strconv.Itoa(testenv.FreeUDPPort(t)), "Port = 44701", "Port = "+strconv.Itoa(testenv.FreeUDPPort(t)))
	a, _ := startFile(t, loadAt(t, filepath.Join(dir, "beside.toml"), text))
	for _, th := range a.threads {
		if len(th.brokers) != 1 {
			t.Errorf("thread %s has %d brokers, want 1 (the live datasource's)", th.cfg.Name, len(th.brokers))
		}
	}
	r := a.DataSource("Shot").(*replay.Replay)
	replaytest.Connect(t, r.Streamer().LocalAddr().String())
	testenv.Eventually(t, "two loops", 20*time.Second, func() bool { return r.Stats().Loops >= 2 })
	waitScope(t, a.ScopeAddr()+"/Shot", 1)
	if st := a.Status().DataSources[1].(replay.Status); st.Finished || st.Position > 20 {
		t.Errorf("looping replay: %+v", st)
	}
}
