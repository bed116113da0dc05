package replay

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/dstest"
	"github.com/streamerd/streamerd/internal/record"
	"github.com/streamerd/streamerd/internal/replay/replaytest"
	"github.com/streamerd/streamerd/internal/testenv"
)

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// gapAt is the loss the live producer declares before some cycles.
var gapAt = map[int]uint32{40: 3, 41: 1, 150: 12}

// TestRoundTrip records a live stream, replays the recording, records the
// replay, and compares the two recordings value for value: signals,
// quantisation codes, losses, counter steps.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")

	const n = 300
	replaytest.Record(t, a, n, gapAt)

	r, err := New(a, Options{Server: udpstreamer.Config{Address: "127.0.0.1"}, Speed: 2, WaitClient: true}, metrics.NewSet(), discard())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sessB, stopB := replaytest.RecordFrom(t, r.Streamer().LocalAddr().String(), b)
	testenv.Receive(t, r.Done(), 30*time.Second, "the end of the replay")
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	replaytest.WaitRows(t, sessB, n, "the replay is recorded")
	stopB()
	if st := r.Stats(); st.Rows != n || st.Lost != 16 || st.Loops != 1 || st.Position != n || st.PositionTime <= 0 {
		t.Errorf("replay stats %+v", st)
	}
	if st := r.StatusReport().(Status); st.Class != ClassReplay || !st.Finished || st.Error != "" || st.FileRows != n || st.File != a {
		t.Errorf("status %+v", st)
	}

	la, ra := replaytest.Rows(t, a)
	lb, rb := replaytest.Rows(t, b)
	if len(la.Columns) != len(lb.Columns) || len(ra) != n || len(rb) != n {
		t.Fatalf("%d and %d columns, %d and %d rows", len(la.Columns), len(lb.Columns), len(ra), len(rb))
	}
	for i := range la.Signals {
		if la.Signals[i] != lb.Signals[i] {
			t.Errorf("signal %d: recorded %+v, replayed %+v", i, la.Signals[i], lb.Signals[i])
		}
	}
	ctr, lost := la.Column(record.ColCounter), la.Column(record.ColLost)
	var lostA uint64
	for i := range ra {
		for c, col := range la.Columns {
			if strings.HasPrefix(col.Name, "_") {
				continue
			}
			if ra[i][c] != rb[i][c] {
				t.Fatalf("row %d, %s: recorded %#x, replayed %#x", i, col.Name, ra[i][c], rb[i][c])
			}
		}
		if ra[i][lost] != rb[i][lost] {
			t.Fatalf("row %d: _lost %d recorded, %d replayed", i, ra[i][lost], rb[i][lost])
		}
		lostA += ra[i][lost]
		if i > 0 && ra[i][ctr]-ra[i-1][ctr] != rb[i][ctr]-rb[i-1][ctr] {
			t.Fatalf("row %d: counter step %d recorded, %d replayed", i, ra[i][ctr]-ra[i-1][ctr], rb[i][ctr]-rb[i-1][ctr])
		}
	}
	if lostA != 16 || ra[40][lost] != 3 || ra[41][lost] != 1 {
		t.Errorf("%d lost in the recording; rows 40, 41: %d, %d", lostA, ra[40][lost], ra[41][lost])
	}
}

// TestReplayLoopsAndStops: with Loop the recording plays again; Stop ends
// it; Speed out of range is refused.
func TestReplayLoopsAndStops(t *testing.T) {
	a := replaytest.Record(t, filepath.Join(t.TempDir(), "a.parquet"), 20, nil)
	for _, o := range []Options{{Speed: 20}, {PacingPriority: 100}, {Server: udpstreamer.Config{Signals: replaytest.Signals()}}} {
		if _, err := New(a, o, metrics.NewSet(), discard()); err == nil {
			t.Errorf("%+v taken", o)
		}
	}
	sigs, rows, err := Inspect(a)
	if err != nil || rows != 20 || len(sigs) != len(replaytest.Signals()) || sigs[3].TimeSignal != "T0" {
		t.Errorf("Inspect: %d rows, %+v, %v", rows, sigs, err)
	}
	r, err := New(a, Options{Server: udpstreamer.Config{Address: "127.0.0.1"}, Loop: true}, metrics.NewSet(), discard())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	replaytest.Connect(t, r.Streamer().LocalAddr().String())
	testenv.Eventually(t, "three loops", 20*time.Second, func() bool { return r.Stats().Loops >= 3 })
	if st := r.StatusReport().(Status); st.Finished || st.Position < 1 || st.Position > 20 {
		t.Errorf("looping: %+v", st)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	testenv.Receive(t, r.Done(), 5*time.Second, "Done after Stop")
	if r.Err() != nil {
		t.Errorf("Err after Stop: %v", r.Err())
	}
}

// TestBadFilesNameTheFileAndTheProblem: a foreign, truncated or corrupt
// file gets an error naming it, never a panic.
func TestBadFilesNameTheFileAndTheProblem(t *testing.T) {
	dir := t.TempDir()
	good := replaytest.Record(t, filepath.Join(dir, "good.parquet"), 50, nil)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	corrupt := append([]byte(nil), data...)
	for i := len(corrupt) - 200; i < len(corrupt)-8; i++ {
		corrupt[i] ^= 0x5A
	}
	for _, c := range []struct{ path, want string }{
		{write("empty.parquet", nil), "too short"},
		{write("text.parquet", []byte("time,value\n1,2\n3,4\n")), "not a Parquet file"},
		{write("truncated.parquet", data[:len(data)/2]), "footer is missing"},
		{write("corrupt.parquet", corrupt), "corrupt"},
		{filepath.Join(dir, "missing.parquet"), "no such file"},
		{testenv.Mkfifo(t, filepath.Join(dir, "fifo.parquet")), "not a regular file (a named pipe)"},
	} {
		_, err := New(c.path, Options{}, metrics.NewSet(), discard())
		if err == nil || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error naming it and saying %q", filepath.Base(c.path), err, c.want)
		}
		_, _, err = Inspect(c.path)
		if err == nil || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Inspect %s: %v; want an error naming it and saying %q", filepath.Base(c.path), err, c.want)
		}
	}
}

// TestReplayDataSourceContract: a Replay follows the DataSource and
// Opener lifecycles an application drives it through, and refuses to
// start on a recording that changed since New checked it.
func TestReplayDataSourceContract(t *testing.T) {
	a := replaytest.Record(t, filepath.Join(t.TempDir(), "a.parquet"), 5, nil)
	newReplay := func() datasource.DataSource {
		r, err := New(a, Options{Server: udpstreamer.Config{Address: "127.0.0.1"}, Speed: 0}, metrics.NewSet(), discard())
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	lifecycle(t, newReplay())
	dstest.Opener(t, newReplay)

	// A recording replaced between New and the start is refused.
	r := newReplay()
	b := replaytest.Record(t, filepath.Join(t.TempDir(), "b.parquet"), 7, nil)
	if err := os.Rename(b, a); err != nil {
		t.Fatal(err)
	}
	err := r.AllocateMemory()
	if err == nil {
		err = r.PrepareNextState()
	}
	if err == nil || !strings.Contains(err.Error(), a+" changed since it was checked (5 rows then, 7 now") {
		t.Errorf("a replaced recording: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Error(err)
	}
}

// TestStatusJSONIsOneObject: /status shows a replay as one object, the
// Streamer's fields with the class Replay, then the replay's.
func TestStatusJSONIsOneObject(t *testing.T) {
	b, err := json.Marshal(Status{Streamer: map[string]any{"name": "R", "class": "UDPStreamer", "connected": true}, Class: ClassReplay,
		File: "f.parquet", Speed: "1", Stats: Stats{Rows: 3}})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if m["name"] != "R" || m["connected"] != true || m["file"] != "f.parquet" || m["rows"] != 3.0 || m["class"] != ClassReplay || bytes.Count(b, []byte(`"class"`)) != 1 {
		t.Errorf("%s", b)
	}
}

// lifecycle drives ds through the MARTe2 order and every repeated call:
// each call out of order returns its error, Close twice returns nil.
func lifecycle(t *testing.T, ds datasource.DataSource) {
	t.Helper()
	want := func(what string, err, target error) {
		t.Helper()
		if !errors.Is(err, target) {
			t.Errorf("%s: %v, want %v", what, err, target)
		}
	}
	want("PrepareNextState before AllocateMemory", ds.PrepareNextState(), datasource.ErrNotAllocated)
	if err := ds.AllocateMemory(); err != nil {
		t.Fatal(err)
	}
	want("second AllocateMemory", ds.AllocateMemory(), datasource.ErrAllocatedTwice)
	if err := ds.PrepareNextState(); err != nil {
		t.Fatal(err)
	}
	want("second PrepareNextState", ds.PrepareNextState(), datasource.ErrStarted)
	want("Close", ds.Close(), nil)
	want("second Close", ds.Close(), nil)
}

// sessionClient returns the client holding s's session (its Internals).
func sessionClient(s *udpstreamer.Streamer) netip.AddrPort {
	return s.Internals().(interface{ Client() netip.AddrPort }).Client()
}

// writeTimes writes a FlatUDP recording of one uint32 signal whose rows
// came at the given times.
func writeTimes(t *testing.T, times ...time.Time) string {
	t.Helper()
	l, err := record.ForFlatUDP("127.0.0.1:1", "A:uint32", "little")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "times.parquet")
	w, err := record.Create(l, record.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	for i, at := range times {
		if err := w.Row().FlatUDP(binary.LittleEndian.AppendUint32(nil, uint32(i)), at); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReplayBoundsItsTime: a gap of 100 days between two rows is played
// as a minute and counted; a Loop of a recording without rows is refused;
// one whose rows share one time loops at most once a millisecond rather
// than taking a CPU.
func TestReplayBoundsItsTime(t *testing.T) {
	t0 := time.Unix(1700000000, 0)
	gap := writeTimes(t, t0, t0.Add(time.Millisecond), t0.Add(100*24*time.Hour), t0.Add(100*24*time.Hour+time.Millisecond))
	r, err := New(gap, Options{Server: udpstreamer.Config{Address: "127.0.0.1"}}, metrics.NewSet(), discard()) // flat out
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	testenv.Receive(t, r.Done(), 30*time.Second, "the end of the replay")
	if st := r.Stats(); st.Rows != 4 || st.Shortened != 1 {
		t.Errorf("100-day gap: %+v", st)
	}
	r.Close()

	empty := writeTimes(t)
	if _, err := New(empty, Options{Server: udpstreamer.Config{Address: "127.0.0.1"}, Loop: true}, metrics.NewSet(), discard()); err == nil || !strings.Contains(err.Error(), "no rows") {
		t.Errorf("Loop of an empty recording: %v", err)
	}

	same := writeTimes(t, t0, t0, t0)
	r, err = New(same, Options{Server: udpstreamer.Config{Address: "127.0.0.1"}, Speed: 1, Loop: true}, metrics.NewSet(), discard())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	time.Sleep(200 * time.Millisecond)
	if loops, most := r.Stats().Loops, uint64(time.Since(start)/time.Millisecond)+2; loops > most {
		t.Errorf("%d loops in %v: more than one a millisecond", loops, time.Since(start))
	}
}

// TestPaceNeverCatchesUp: a row due dt after the one before goes then; a
// pacing thread more than dt late sends it at once and the rows after it
// keep their spacing from there, so no two rows go closer than a stall
// allows a live producer's (a burst a client would learn a wrong period
// from).
func TestPaceNeverCatchesUp(t *testing.T) {
	const dt = 1_000_000
	for _, c := range []struct {
		now      int64 // when the pacing thread comes to the row due at dt
		next     int64
		late     bool
		nextNext int64 // the row after, when the thread comes to it at once
	}{
		{now: 0, next: dt, nextNext: 2 * dt},                         // early: sleeps until due
		{now: dt + dt/2, next: dt, nextNext: 2 * dt},                 // half a row late: goes now, the next on time
		{now: 50 * dt, next: 50 * dt, late: true, nextNext: 51 * dt}, // a stall: the clock moves
	} {
		next, late := pace(0, dt, c.now)
		if next != c.next || late != c.late {
			t.Errorf("now %d: due %d late %v, want %d %v", c.now, next, late, c.next, c.late)
		}
		if nn, _ := pace(next, dt, max(c.now, next)); nn != c.nextNext {
			t.Errorf("now %d: the row after due %d, want %d", c.now, nn, c.nextNext)
		}
	}
	if next, late := pace(5, 0, 10); next != 5 || late {
		t.Errorf("a row of the same instant: due %d late %v, want 5 false: it goes at once and moves nothing", next, late)
	}
}
