package main

import (
	"bytes"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	flatclient "github.com/streamerd/streamerd/datasource/flatudp/client"
	flatwire "github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/internal/testenv"
)

const marte2Testdata = "../../internal/marte2/testdata"

// streamerd runs the built binary and returns stdout, stderr and the exit
// code.
func streamerd(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func TestImportMARTe2Check(t *testing.T) {
	out, errs, code := streamerd(t, marte2Testdata, "-import-marte2", "udpsender.cfg", "-check")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		"maps          udpsender.cfg:119:9",
		"skipped       udpsender.cfg:132:9   $SenderApp.+Data.+Recorder (FileDataSource::FileWriter)",
		"udpsender.cfg: 12 maps, 2 approximated, 3 skipped",
		"udpsender.cfg: the imported configuration is valid",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// A signal fed by what is not imported fails the import and is named;
// -import-marte2-partial imports the rest with warnings.
func TestImportMARTe2Unfed(t *testing.T) {
	out, errs, code := streamerd(t, marte2Testdata, "-import-marte2", "groups-unfed.cfg")
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	if !strings.Contains(errs, "groups-unfed.cfg:120:17: $TwoThreads.+Data.+FastUDP.Signals.Sweep is unfed: $TwoThreads.+Functions.+Fast.+Chirp sweeps from 1 Hz to 100 Hz") {
		t.Errorf("stderr:\n%s", errs)
	}
	out, errs, code = streamerd(t, marte2Testdata, "-import-marte2", "groups-partial.cfg", "-import-marte2-partial")
	if code != 0 || !strings.HasPrefix(out, "# Imported from groups-partial.cfg") {
		t.Fatalf("partial: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "warning: groups-partial.cfg:120:17: $TwoThreads.+Data.+FastUDP.Signals.Sweep: approximated: not fed, stays zero") {
		t.Errorf("partial: stderr:\n%s", errs)
	}
}

func TestImportMARTe2Errors(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.cfg")
	if err := os.WriteFile(big, bytes.Repeat([]byte("A = 1\n"), 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-import-marte2", "syntax-error.cfg"}, 1, "syntax-error.cfg:12:1: unexpected end of file: a block is not closed"},
		{[]string{"-import-marte2", "missing.cfg"}, 1, "no such file"},
		{[]string{"-import-marte2", big}, 1, "big.cfg:1:1: file larger than 4194304 bytes"},
		{[]string{"-import-marte2", "udpsender.cfg", "-config", "x.toml"}, 2, "-import-marte2 and -config exclude each other"},
	} {
		_, errs, code := streamerd(t, marte2Testdata, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

// The imported TOML has an [App] whose HTTPAddress is a free loopback
// port picked when streamerd starts (so that it runs beside another
// streamerd, make run's on 9100 say), the report says so, and -http
// writes another address, or "" (HTTP off).
func TestImportMARTe2HTTP(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, `HTTPAddress = "127.0.0.1:0"`},
		{[]string{"-http", "127.0.0.1:9151"}, `HTTPAddress = "127.0.0.1:9151"`},
		{[]string{"-http", ""}, `HTTPAddress = ""`},
	} {
		out, errs, code := streamerd(t, marte2Testdata, append([]string{"-import-marte2", "udpsender.cfg"}, tc.args...)...)
		if code != 0 || !strings.Contains(out, "\n[App]\n"+tc.want+"\n") {
			t.Errorf("%v: exit %d, no [App] with %s:\n%s%s", tc.args, code, tc.want, out, errs)
		}
	}
	out, errs, code := streamerd(t, marte2Testdata, "-import-marte2", "udpsender.cfg", "-check")
	if want := `$SenderApp (RealTimeApplication)                                → [App] HTTPAddress = "127.0.0.1:0": HTTP (metrics, status, control) on a free loopback port picked when streamerd starts and named in its log ("HTTP listening")`; code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d, the report does not say where HTTP is:\n%s%s", code, out, errs)
	}
}

// What the loader refuses in the imported TOML is reported at the line of
// the MARTe2 file it comes from, never at a line of the TOML, and every
// error once.
func TestImportMARTe2ErrorsAtCfgLines(t *testing.T) {
	cfg, err := os.ReadFile(filepath.Join(marte2Testdata, "udpsender.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		old, new string
		want     []string
	}{
		{"Frequency = 1000 ", "Frequency = 1e30 ", []string{
			`app.cfg:23:21: Threads[0] "Thread1": Frequency: period must be 1µs..1h0m0s, got 1.0000000150474662e+30 Hz`}},
		{"Frequency = 1000 ", "Frequency = -5 ", []string{
			`app.cfg:23:21: $SenderApp.+Functions.+GAMTimer: Frequency: expected a number > 0 Hz, got "-5"`}},
		{"Sine = { Type = float32 }", "\"Si\\tne\" = { Type = float32 }", []string{
			`app.cfg:127:17: GAMs[1] "SineGAM" Outputs[0]: Alias: must not contain control or format characters (U+0009 at byte 2), got "Si\tne"`,
			`app.cfg:127:17: DataSources[0] "UDPOut" Signals[2] "Si\tne": Name: must not contain control or format characters (U+0009 at byte 2), got "Si\tne"`}},
		{"+SineGAM", "+Sine\xffGAM", []string{
			`app.cfg:31:14: byte 0xff is not UTF-8: names and values must be UTF-8 text (convert the file, e.g. iconv -f latin1 -t utf-8)`}},
	} {
		app := strings.Replace(string(cfg), tc.old, tc.new, 1)
		if app == string(cfg) {
			t.Fatalf("%q is not in udpsender.cfg", tc.old)
		}
		if strings.Contains(tc.new, "Si") { // the signal's other mention, in SendGAM
			app = strings.Replace(app, "Sine = { DataSource = UDPOut", "\"Si\\tne\" = { DataSource = UDPOut", 1)
		}
		if err := os.WriteFile(filepath.Join(dir, "app.cfg"), []byte(app), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errs, code := streamerd(t, dir, "-import-marte2", "app.cfg")
		if code != 1 || out != "" {
			t.Errorf("%s: exit %d, stdout %q", tc.new, code, out)
		}
		for _, w := range tc.want {
			if n := strings.Count(errs, w); n != 1 {
				t.Errorf("%s: %q %d times in:\n%s", tc.new, w, n, errs)
			}
		}
		if strings.Contains(errs, "(imported)") || strings.Contains(errs, "\uFFFD") {
			t.Errorf("%s: an error names the generated TOML or a replaced byte:\n%s", tc.new, errs)
		}
	}
}

// The end-to-end path of an imported application: import a UDPSender
// application, print its signals string with -describe, run it, decode its
// datagrams as flatrecv does with that string, and check each value is the
// one MARTe2 computes for the datagram's Counter, also across the periods
// missed while the daemon is stopped.
func TestImportMARTe2EndToEnd(t *testing.T) {
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	port := conn.LocalAddr().(*net.UDPAddr).Port
	cfg, err := os.ReadFile(filepath.Join(marte2Testdata, "udpsender.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	app := strings.Replace(string(cfg), "Port = 44488", "Port = "+strconv.Itoa(port), 1)
	if err := os.WriteFile(filepath.Join(dir, "app.cfg"), []byte(app), 0o644); err != nil {
		t.Fatal(err)
	}
	toml, errs, code := streamerd(t, dir, "-import-marte2", "app.cfg")
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, errs)
	}
	if !strings.Contains(errs, "warning: app.cfg:132:9: $SenderApp.+Data.+Recorder (FileDataSource::FileWriter): skipped") {
		t.Errorf("the FileWriter is not reported as skipped:\n%s", errs)
	}
	// Run as imported: its [App] takes a free HTTP port, whatever else
	// runs beside it.
	if err := os.WriteFile(filepath.Join(dir, "app.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	desc, errs, code := streamerd(t, dir, "-config", "app.toml", "-describe")
	m := regexp.MustCompile(`signals string \([^)]*\): (\S+)`).FindStringSubmatch(desc)
	if code != 0 || m == nil {
		t.Fatalf("describe: exit %d\n%s%s", code, desc, errs)
	}
	if want := "Counter:uint32,Time:uint32,Sine:float32,Cosine:float64,Wave:uint16[4]"; m[1] != want {
		t.Fatalf("signals %q, want %q", m[1], want)
	}
	layout, err := flatwire.ParseLayout(m[1])
	if err != nil {
		t.Fatal(err)
	}
	rx := flatclient.NewReceiver(conn, layout)

	d := startDaemon(t, toml)
	var got [][]uint64
	read := func(n int) {
		for range n {
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			dg, _, err := rx.Read()
			if err != nil {
				t.Fatalf("after %d datagrams: %v\n%s", len(got), err, d.stderr)
			}
			raw := make([]uint64, layout.TotalElements())
			if err := layout.DecodeRaw(raw, dg, flatwire.Little); err != nil {
				t.Fatal(err)
			}
			got = append(got, raw)
		}
	}
	read(300)
	// Stop the whole daemon for 50 periods: its RT thread misses them and
	// LinuxTimer's Counter jumps, as in MARTe2.
	testenv.Pause(t, d.cmd.Process, 50*time.Millisecond)
	read(300)
	d.stop(t)
	checkMARTe2Values(t, got)
}

// checkMARTe2Values checks datagrams [Counter, Time, Sine, Cosine,
// Wave[4]] against MARTe2's WaveformSin for their Counter: Time = Counter ×
// 1000 µs, the first cycle zero, array elements spaced by the first two
// cycles' times over 4, integers truncated.
func checkMARTe2Values(t *testing.T, got [][]uint64) {
	t.Helper()
	if got[0][0] != 1 {
		t.Fatalf("first datagram: Counter %d, want 1 (the first datagram was lost?)", got[0][0])
	}
	sine := func(a, f, ph, o, tm float64) float64 {
		return float64(a*math.Sin(float64(2*math.Pi*f*tm)+ph)) + o
	}
	inc := float64(got[1][1]-got[0][1]) / 4 / 1e6
	jumps, prev := 0, uint64(0)
	for i, g := range got {
		c, tm := g[0], g[1]
		if i > 0 && c <= prev {
			t.Fatalf("datagram %d: Counter %d after %d", i, c, prev)
		}
		if i > 0 && c > prev+1 {
			jumps++
		}
		prev = c
		if tm != c*1000 {
			t.Fatalf("datagram %d: Time %d, want Counter %d × 1000", i, tm, c)
		}
		s := float64(tm) / 1e6
		want := [8]uint64{c, tm}
		if i > 0 {
			want[2] = uint64(math.Float32bits(float32(sine(1.5, 7.3, 0.3, 0.25, s))))
			want[3] = math.Float64bits(sine(2, 5, 1.5707963267948966, 0, s))
			te := s // elements at s, s+inc, ... accumulated as MARTe2 does
			for e := range 4 {
				want[4+e] = uint64(uint16(sine(30000, 50, 0, 32768, te)))
				te += inc
			}
		}
		if [8]uint64(g) != want {
			t.Fatalf("datagram %d (Counter %d): got %v, want %v", i, c, g, want)
		}
	}
	if jumps == 0 {
		t.Errorf("no missed period in %d datagrams (Counter %d..%d): the SIGSTOP did not show", len(got), got[0][0], prev)
	}
	t.Logf("%d datagrams, Counter 1..%d, %d jumps over missed periods: every value as MARTe2 computes it", len(got), prev, jumps)
}

// The import's soft memory limit is the process's: it is lifted when the
// import ends, whether the import succeeds or fails.
func TestImportMARTe2LiftsMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	for _, f := range []string{"udpsender.cfg", "bad-refs.cfg", "syntax-error.cfg"} {
		importMARTe2(filepath.Join(marte2Testdata, f), options{}, io.Discard, io.Discard)
		if got := debug.SetMemoryLimit(-1); got != before {
			t.Errorf("%s: memory limit %d after the import, was %d", f, got, before)
		}
	}
}
