package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/cli"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/internal/udpstest"
	"github.com/streamerd/streamerd/quant"
)

const wait = 10 * time.Second // generous: the CI box is a loaded 2-core VM

// testSigs: a µs time base, a quantised scalar, a 4-sample FirstSample
// vector, a signed int vector and a 2x2 matrix.
func testSigs() []datasource.Signal {
	return []datasource.Signal{
		{Name: "T0", Type: datasource.Uint32, Unit: "us"},
		{Name: "P", Type: datasource.Float32, Unit: "Pa", QuantizedType: quant.Uint8, RangeMin: 0, RangeMax: 255},
		{Name: "Ch1", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 4, Unit: "V", TimeMode: datasource.FirstSample, TimeSignal: "T0", SamplingRate: 1000},
		{Name: "I", Type: datasource.Int16, NumberOfDimensions: 1, NumberOfElements: 4},
		{Name: "M", Type: datasource.Float64, NumberOfDimensions: 2, Rows: 2, Cols: 2},
	}
}

func testValues(i int) [][]float64 {
	f := float64(i)
	return [][]float64{{1e6 * f}, {f}, {0.5, 1.5, 2.5, f}, {-1, -2, 3, -f}, {1, 2, 3, math.NaN()}}
}

type result struct {
	code           int
	stdout, stderr string
}

// runAgainst runs udps with args against srv and sends updates 0..count-1
// once it connects; it returns when run does.
func runAgainst(t *testing.T, srv *udpstest.Server, count int, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr testenv.Buffer
	done := startAgainst(t, ctx, srv, &stdout, &stderr, append([]string{"-local", "127.0.0.1:0", "-timeout", "10s"}, args...)...)
	sigs := testSigs()
	for i := range count {
		p, err := udpstest.Payload(sigs, uint64(1000+i), testValues(i))
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.SendUpdate(uint32(i), p); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case code := <-done:
		return result{code, stdout.String(), stderr.String()}
	case <-time.After(wait):
		cancel()
		<-done
		t.Fatalf("udps did not stop; stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	return result{}
}

// startAgainst starts udps with args against srv and returns, once it
// connects, the channel its exit code comes on.
func startAgainst(t *testing.T, ctx context.Context, srv *udpstest.Server, stdout, stderr *testenv.Buffer, args ...string) <-chan int {
	t.Helper()
	done := make(chan int, 1)
	connected := srv.Connected()
	go func() {
		done <- run(ctx, append([]string{"-server", srv.Addr().String()}, args...), stdout, stderr)
	}()
	select {
	case <-connected:
	case code := <-done:
		t.Fatalf("udps exited with %d before connecting: %s", code, stderr.String())
	case <-time.After(wait):
		t.Fatal("udps never connected")
	}
	return done
}

func waitDisconnect(t *testing.T, srv *udpstest.Server) {
	t.Helper()
	for deadline := time.Now().Add(wait); srv.Disconnects() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("udps did not send DISCONNECT")
		}
	}
}

// TestHelp: -h exits 0 with a usage that lists every flag and examples.
func TestHelp(t *testing.T) {
	testenv.Help(t, "udps", func(args []string, stdout, stderr io.Writer) int {
		return run(context.Background(), args, stdout, stderr)
	}, "server", "local", "format", "per-sample", "n", "timeout", "interval")
}

func TestCSV(t *testing.T) {
	srv := udpstest.NewServer(t, testSigs(), 1400)
	r := runAgainst(t, srv, 5, "-format", "csv", "-n", "3")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want := "counter,hrt_ns,lost,skipped,silence_s,T0,P,Ch1[0],Ch1[1],Ch1[2],Ch1[3],I[0],I[1],I[2],I[3],M[0][0],M[0][1],M[1][0],M[1][1]\n" +
		"0,1000,0,0,0,0,0,0.5,1.5,2.5,0,-1,-2,3,0,1,2,3,NaN\n" +
		"1,1001,0,0,0,1000000,1,0.5,1.5,2.5,1,-1,-2,3,-1,1,2,3,NaN\n" +
		"2,1002,0,0,0,2000000,2,0.5,1.5,2.5,2,-1,-2,3,-2,1,2,3,NaN\n"
	if r.stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
	for _, s := range []string{"NAME", "Ch1", "float32", "uint8", "[4]", "[2x2]", "[0, 255]", "FirstSample(T0, 1000 Hz)", "3 updates"} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
	waitDisconnect(t, srv)
}

func TestJSON(t *testing.T) {
	srv := udpstest.NewServer(t, testSigs(), 1400)
	r := runAgainst(t, srv, 3, "-format", "json", "-n", "3")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), r.stdout)
	}
	for i, l := range lines {
		var v struct {
			Counter uint32
			HRT     uint64 `json:"hrt_ns"`
			Lost    uint32
			Signals struct {
				T0  uint32
				P   float64
				Ch1 []float32
				I   []int16
				M   [][]*float64
			}
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %d %q: %v", i, l, err)
		}
		s := v.Signals
		if v.Counter != uint32(i) || v.HRT != uint64(1000+i) || s.T0 != uint32(1e6*i) || s.P != float64(i) ||
			len(s.Ch1) != 4 || s.Ch1[3] != float32(i) || len(s.I) != 4 || s.I[3] != int16(-i) ||
			len(s.M) != 2 || *s.M[1][0] != 3 || s.M[1][1] != nil {
			t.Errorf("line %d decoded wrong: %s", i, l)
		}
	}
	waitDisconnect(t, srv)
}

func TestPerSampleCSV(t *testing.T) {
	srv := udpstest.NewServer(t, testSigs(), 1400)
	r := runAgainst(t, srv, 2, "-format", "csv", "-per-sample", "-n", "2")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// Ch1 (FirstSample, T0 in µs at 1 kHz) and I (PacketTime: hrt) have
	// different time bases; M has 4 elements too. P and T0 are repeated.
	want := "counter,hrt_ns,lost,skipped,silence_s,k,time_s:Ch1,time_s:I,T0,P,Ch1,I,M\n" +
		"0,1000,0,0,0,0,0,1e-06,0,0,0.5,-1,1\n" +
		"0,1000,0,0,0,1,0.001,1e-06,0,0,1.5,-2,2\n" +
		"0,1000,0,0,0,2,0.002,1e-06,0,0,2.5,3,3\n" +
		"0,1000,0,0,0,3,0.003,1e-06,0,0,0,0,NaN\n" +
		"1,1001,0,0,0,0,1,1.001e-06,1000000,1,0.5,-1,1\n" +
		"1,1001,0,0,0,1,1.001,1.001e-06,1000000,1,1.5,-2,2\n" +
		"1,1001,0,0,0,2,1.002,1.001e-06,1000000,1,2.5,3,3\n" +
		"1,1001,0,0,0,3,1.003,1.001e-06,1000000,1,1,-1,NaN\n"
	if r.stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
}

func TestPerSampleJSON(t *testing.T) {
	srv := udpstest.NewServer(t, testSigs(), 1400)
	r := runAgainst(t, srv, 1, "-format", "json", "-per-sample", "-n", "1")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), r.stdout)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(lines[2]), &v); err != nil {
		t.Fatal(err)
	}
	sig := v["signals"].(map[string]any)
	if v["k"] != 2.0 || v["time_s:Ch1"] != 0.002 || sig["Ch1"] != 2.5 || sig["I"] != 3.0 || sig["T0"] != 0.0 {
		t.Errorf("row 2: %s", lines[2])
	}
}

func TestTable(t *testing.T) {
	srv := udpstest.NewServer(t, testSigs(), 1400)
	r := runAgainst(t, srv, 3, "-n", "3", "-format", "table")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, s := range []string{"CONFIG from 127.0.0.1:", "#  NAME", "PacketTime", "#2 hrt=1002 lost=0 skipped=0  T0=2000000  P=2  Ch1=[0.5 1.5 2.5 2]  I=[-1 -2 3 -2]  M=[1 2 3 NaN]\n"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, r.stdout)
		}
	}
}

func TestStatsUntilInterrupted(t *testing.T) {
	srv := udpstest.NewServer(t, testSigs(), 1400)
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr testenv.Buffer
	done := startAgainst(t, ctx, srv, &stdout, &stderr, "-format", "stats", "-interval", "20ms")
	p, _ := udpstest.Payload(testSigs(), 1, nil)
	for deadline := time.Now().Add(wait); strings.Count(stdout.String(), "updates/s=") < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no stats lines:\n%s", stdout.String())
		}
		srv.SendUpdate(0, p)
	}
	cancel() // as SIGINT does
	if code := exitCode(t, done); code != 0 {
		t.Errorf("exit %d after interrupt: %s", code, stderr.String())
	}
	waitDisconnect(t, srv)
	if !strings.Contains(stdout.String(), "NAME") || !strings.Contains(stdout.String(), "MB/s=") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
}

func TestMidStreamConfig(t *testing.T) {
	srv := udpstest.NewServer(t, testSigs(), 1400)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr testenv.Buffer
	done := startAgainst(t, ctx, srv, &stdout, &stderr, "-format", "csv", "-n", "2")
	p, _ := udpstest.Payload(testSigs(), 1, nil)
	srv.SendUpdate(0, p)
	sigs2 := []datasource.Signal{{Name: "X", Type: datasource.Int8}}
	if err := srv.SetSignals(sigs2); err != nil {
		t.Fatal(err)
	}
	srv.SendConfig()
	p2, _ := udpstest.Payload(sigs2, 2, [][]float64{{-7}})
	srv.SendUpdate(0, p2)
	if code := exitCode(t, done); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if out := stdout.String(); !strings.HasSuffix(out, "counter,hrt_ns,lost,skipped,silence_s,X\n0,2,0,0,0,-7\n") {
		t.Errorf("stdout:\n%s", out)
	}
	if !strings.Contains(stderr.String(), "new CONFIG") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

func TestNoServer(t *testing.T) {
	srv := udpstest.NewServer(t, testSigs(), 1400)
	srv.IgnoreConnects(1 << 30)
	var stdout, stderr testenv.Buffer
	code := run(context.Background(), []string{"-server", srv.Addr().String(), "-timeout", "300ms"}, &stdout, &stderr)
	if code != cli.ExitError || !strings.Contains(stderr.String(), "no CONFIG") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-format", "xml"}, {"-per-sample"}, {"-timeout", "0s"}, {"extra"}, {"-n", "-1"},
	} {
		var stdout, stderr testenv.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != cli.ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, cli.ExitUsage)
		}
	}
	var stdout, stderr testenv.Buffer
	if code := run(context.Background(), []string{"-server", "nohost.invalid:x:y"}, &stdout, &stderr); code != cli.ExitError {
		t.Errorf("bad server: exit %d", code)
	}
}

func TestCSVQuotingAndJSONKeys(t *testing.T) {
	sigs := []datasource.Signal{{Name: `a,"b"`, Type: datasource.Uint64},
		{Name: "big", Type: datasource.Int64}}
	srv := udpstest.NewServer(t, sigs, 1400)
	c, cfg := connected(t, srv, client.Options{})
	p := make([]byte, payloadBytes(cfg))
	for k := 8; k < 16; k++ {
		p[k] = 0xFF // uint64 max: must print exactly
	}
	p[23] = 0x80 // int64 min
	srv.SendUpdate(0, p)
	var u client.Update
	c.SetReadDeadline(time.Now().Add(wait))
	if err := c.Next(&u); err != nil {
		t.Fatal(err)
	}
	out := printTo(t, cfg, formatCSV, func(p *printer) {
		p.writeHeader()
		p.write(&u)
	})
	if out != "counter,hrt_ns,lost,skipped,silence_s,\"a,\"\"b\"\"\",big\n0,0,0,0,0,18446744073709551615,-9223372036854775808\n" {
		t.Errorf("CSV %q", out)
	}
	js := printTo(t, cfg, formatJSON, func(p *printer) { p.write(&u) })
	var v struct{ Signals map[string]json.Number }
	d := json.NewDecoder(strings.NewReader(js))
	d.UseNumber()
	if err := d.Decode(&v); err != nil || v.Signals[`a,"b"`] != "18446744073709551615" || v.Signals["big"] != "-9223372036854775808" {
		t.Errorf("JSON %s: %v", js, err)
	}
}

// printTo runs f on a printer of cfg in format writing to a buffer, and
// returns what it wrote.
func printTo(t *testing.T, cfg *client.Config, format string, f func(*printer)) string {
	t.Helper()
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	p, err := newPrinter(context.Background(), cfg, options{format: format, maxColumns: defaultMaxColumns}, w)
	if err != nil {
		t.Fatal(err)
	}
	f(p)
	w.Flush()
	return b.String()
}

// connected returns a client of srv, with opts on the loopback, after
// Connect; the test's cleanup closes it.
func connected(t *testing.T, srv *udpstest.Server, opts client.Options) (*client.Client, *client.Config) {
	t.Helper()
	opts.LocalAddr, opts.ConnectTimeout = "127.0.0.1:0", wait
	c, err := client.Dial(srv.Addr().String(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	cfg, err := c.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c, cfg
}

func bigVector(n uint32) []datasource.Signal {
	return []datasource.Signal{
		{Name: "T", Type: datasource.Uint32, Unit: "us"},
		{Name: "Big", Type: datasource.Uint8, NumberOfDimensions: 1, NumberOfElements: int(n), TimeSignal: "T", TimeMode: datasource.FirstSample, SamplingRate: 1e6},
	}
}

// TestCSVColumnCap: a CONFIG of one 4-million-element array would make a
// CSV header of 4 million columns; udps refuses it with a message, at once.
func TestCSVColumnCap(t *testing.T) {
	srv := udpstest.NewServer(t, bigVector(4<<20), 1400)
	var stdout, stderr testenv.Buffer
	code := run(context.Background(), []string{"-server", srv.Addr().String(), "-local", "127.0.0.1:0", "-format", "csv"}, &stdout, &stderr)
	if code != cli.ExitError || !strings.Contains(stderr.String(), "4194310 CSV columns") || !strings.Contains(stderr.String(), "-max-columns 16384") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if stdout.String() != "" {
		t.Errorf("stdout %q", stdout.String())
	}
	var usage testenv.Buffer
	if code := run(context.Background(), []string{"-max-columns", "0"}, &usage, &usage); code != cli.ExitUsage {
		t.Errorf("-max-columns 0: exit %d", code)
	}
}

// bigUpdate returns a Config of bigVector(n) and one update of it, received
// over loopback.
func bigUpdate(t *testing.T, n uint32) (*client.Config, *client.Update) {
	t.Helper()
	sigs := bigVector(n)
	srv := udpstest.NewServer(t, sigs, 65507)
	// No silence detection: on a loaded machine the socket may drop one of
	// the update's 17 datagrams, and the update is sent again until one
	// arrives whole.
	c, cfg := connected(t, srv, client.Options{Silence: -1})
	p, err := udpstest.Payload(sigs, 1, [][]float64{{7}})
	if err != nil {
		t.Fatal(err)
	}
	for k := range int(n) {
		p[12+k] = byte(k)
	}
	got := make(chan struct{})
	sent := make(chan error, 1)
	go func() {
		for counter := uint32(0); ; counter++ {
			if err := srv.SendUpdate(counter, p); err != nil {
				sent <- err
				return
			}
			select {
			case <-got:
				sent <- nil
				return
			case <-time.After(500 * time.Millisecond):
			}
		}
	}()
	var u client.Update
	c.SetReadDeadline(time.Now().Add(wait))
	err = c.Next(&u)
	close(got)
	if serr := <-sent; serr != nil {
		t.Fatal(serr)
	}
	if err != nil {
		t.Fatal(err)
	}
	return cfg, &u
}

// TestLargeUpdateInBoundedMemory: printing a 1 MiB update as JSON, or as 1
// million per-sample rows, allocates a small buffer, not the decoded
// arrays nor the whole text.
func TestLargeUpdateInBoundedMemory(t *testing.T) {
	testenv.SkipIfRace(t)
	const n = 1 << 20
	cfg, u := bigUpdate(t, n)
	for _, o := range []options{{format: formatJSON}, {format: formatCSV, perSample: true}, {format: formatJSON, perSample: true}} {
		o.maxColumns = defaultMaxColumns
		var count countingWriter
		w := bufio.NewWriterSize(&count, 64<<10)
		p, err := newPrinter(context.Background(), cfg, o, w)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := p.write(u); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 || count.n < n {
			t.Errorf("%+v: %d bytes allocated to print %d bytes", o, alloc, count.n)
		}
	}
}

type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += len(p)
	return len(p), nil
}

// TestInterruptStopsALongUpdate: once the context ends, printing a long
// update stops at the next piece.
func TestInterruptStopsALongUpdate(t *testing.T) {
	cfg, u := bigUpdate(t, 1<<20)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var count countingWriter
	p, err := newPrinter(ctx, cfg, options{format: formatCSV, perSample: true, maxColumns: defaultMaxColumns}, bufio.NewWriter(&count))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.write(u); !errors.Is(err, context.Canceled) || count.n > 2*flushAt {
		t.Errorf("write: %v after %d bytes", err, count.n)
	}
}

// TestNamesEscaped: names and units with escape sequences, a bell, a
// newline and a C1 control reach the output escaped in every format; JSON
// keys stay exact.
func TestNamesEscaped(t *testing.T) {
	sigs := []datasource.Signal{
		{Name: "a\x1b]0;pwned\x07", Type: datasource.Uint8, Unit: "V\n"},
		{Name: "b\u009b2J\x1b[H", Type: datasource.Int8, NumberOfDimensions: 1, NumberOfElements: 2},
	}
	for _, format := range []string{"table", "csv", "json", "view"} {
		srv := udpstest.NewServer(t, sigs, 1400)
		r := runWith(t, srv, func() {
			p, _ := udpstest.Payload(sigs, 1, [][]float64{{1}, {-1, 2}})
			srv.SendUpdate(0, p)
		}, "-format", format, "-n", "1")
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", format, r.code, r.stderr)
		}
		out := r.stdout + r.stderr
		if format == "view" { // its own control sequences are the only ones
			for _, seq := range []string{termStart, termHome, termEOL, termEOS, termEnd} {
				out = strings.ReplaceAll(out, seq, "")
			}
		}
		if i := strings.IndexFunc(out, func(r rune) bool { return r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 }); i >= 0 {
			t.Errorf("%s: a control character at %d:\n%q", format, i, out)
		}
		if !strings.Contains(out, `a\x1b]0;pwned\a`) {
			t.Errorf("%s: no escaped name in\n%s", format, out)
		}
	}
}

// TestDefaultFormatIsTableIntoAPipe: without -format, a stdout that is not
// a terminal gets the line-per-update table, as before the view existed.
func TestDefaultFormatIsTableIntoAPipe(t *testing.T) {
	srv := udpstest.NewServer(t, testSigs(), 1400)
	r := runAgainst(t, srv, 2, "-n", "2")
	if r.code != 0 || !strings.Contains(r.stdout, "#1 hrt=1001 lost=0 skipped=0  T0=1000000") || strings.Contains(r.stdout, "\x1b") {
		t.Errorf("exit %d, stdout:\n%s", r.code, r.stdout)
	}
	if isTerminal(&bytes.Buffer{}) || isTerminal(io.Discard) {
		t.Error("a buffer taken for a terminal")
	}
}
