package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/internal/cli"
	"github.com/streamerd/streamerd/internal/flatenc"
	"github.com/streamerd/streamerd/internal/flattest"
	"github.com/streamerd/streamerd/internal/testenv"
)

type session struct {
	stdout, stderr testenv.Buffer
	sender         *net.UDPConn
	cancel         context.CancelFunc
	code           chan int
}

// start runs flatrecv on an ephemeral loopback port with args and returns
// once it listens, with a sender connected to it.
func start(t *testing.T, args ...string) *session {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &session{cancel: cancel, code: make(chan int, 1)}
	addr := make(chan net.Addr, 1)
	go func() {
		s.code <- run(ctx, append([]string{"-listen", "127.0.0.1:0"}, args...), &s.stdout, &s.stderr,
			func(a net.Addr) { addr <- a })
	}()
	select {
	case a := <-addr:
		c, err := net.DialUDP("udp", nil, a.(*net.UDPAddr))
		if err != nil {
			t.Fatal(err)
		}
		s.sender = c
	case code := <-s.code:
		t.Fatalf("flatrecv exited with %d: %s", code, s.stderr.String())
	}
	t.Cleanup(func() {
		cancel()
		s.sender.Close()
	})
	return s
}

func (s *session) wait(t *testing.T) int {
	t.Helper()
	select {
	case code := <-s.code:
		return code
	case <-time.After(20 * time.Second):
		s.cancel()
		t.Fatalf("flatrecv did not stop; stderr: %s", s.stderr.String())
		return -1
	}
}

func layout(t *testing.T, sigs string) *wire.Layout {
	t.Helper()
	l, err := wire.ParseLayout(sigs)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestHelp: -h exits 0 with a usage that lists every flag and examples.
func TestHelp(t *testing.T) {
	testenv.Help(t, "flatrecv", func(args []string, stdout, stderr io.Writer) int {
		return run(context.Background(), args, stdout, stderr, nil)
	}, "listen", "group", "iface", "signals", "endian", "format", "n", "interval")
}

func TestCSV(t *testing.T) {
	const sigs = "Trigger:uint8,Ia:float32,Wave:int16[3],Cnt:uint64"
	s := start(t, "-signals", sigs, "-n", "3")
	l := layout(t, sigs)
	raw := []uint64{1, uint64(math.Float32bits(0.1)), uint64(0xFFFFFFFFFFFFFFFF), 0, 300, 0xFEDCBA9876543210}
	dg := flatenc.AppendRaw(nil, l, raw, wire.Little)
	for _, b := range [][]byte{dg, dg[:5], dg, dg[:5], {1, 2}, dg, dg} {
		s.sender.Write(b)
	}
	if code := s.wait(t); code != 0 {
		t.Fatalf("exit %d: %s", code, s.stderr.String())
	}
	row := "1,0.1,-1,0,300,18364758544493064720\n"
	want := "Trigger,Ia,Wave[0],Wave[1],Wave[2],Cnt\n" + row + row + row
	if got := s.stdout.String(); got != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", got, want)
	}
	errs := s.stderr.String()
	for _, size := range []string{"5", "2"} {
		line := "datagram of " + size + " bytes from "
		if strings.Count(errs, line) != 1 || !strings.Contains(errs, "expected 19, check the signal list") {
			t.Errorf("stderr reports %q %d times, want once:\n%s", line, strings.Count(errs, line), errs)
		}
	}
	if !strings.Contains(errs, "3 of 19 bytes, 3 of a wrong size (2 distinct sizes)") {
		t.Errorf("summary missing:\n%s", errs)
	}
}

func TestJSONBigEndian(t *testing.T) {
	const sigs = "T:uint8,F:float64,N:float32,W:float32[2]w,I:int64"
	s := start(t, "-signals", sigs, "-endian", "big", "-format", "json", "-n", "2")
	l := layout(t, sigs)
	vals := []float64{7, math.Pi, math.NaN(), -1.5, math.Inf(1), -(1 << 62)}
	dg := flatenc.AppendValues(nil, l, vals, wire.Big)
	s.sender.Write(dg)
	s.sender.Write(dg)
	if code := s.wait(t); code != 0 {
		t.Fatalf("exit %d: %s", code, s.stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(s.stdout.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines: %q", len(lines), lines)
	}
	want := `{"T":7,"F":3.141592653589793,"N":null,"W":[-1.5,null],"I":-4611686018427387904}`
	if lines[0] != want || lines[1] != want {
		t.Errorf("lines %q, want %q", lines, want)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &obj); err != nil {
		t.Errorf("not JSON: %v", err)
	}
}

func TestStatsAndSignalStop(t *testing.T) {
	s := start(t, "-signals", "a:uint16[4]", "-format", "stats", "-interval", "20ms")
	dg := make([]byte, 8)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(s.stdout.String(), "datagrams/s") {
		if time.Now().After(deadline) {
			t.Fatalf("no stats line; stdout %q", s.stdout.String())
		}
		s.sender.Write(dg)
		s.sender.Write(dg[:3])
		time.Sleep(5 * time.Millisecond)
	}
	s.cancel() // as SIGINT does
	if code := s.wait(t); code != 0 {
		t.Fatalf("exit %d: %s", code, s.stderr.String())
	}
	if !strings.Contains(s.stdout.String(), "bytes/s") || !strings.Contains(s.stdout.String(), "1 distinct sizes") {
		t.Errorf("stats lines:\n%s", s.stdout.String())
	}
	if n := strings.Count(s.stderr.String(), "datagram of 3 bytes"); n != 1 {
		t.Errorf("wrong size reported %d times:\n%s", n, s.stderr.String())
	}
}

// TestMulticast receives through a group joined on the loopback
// interface. It runs wherever multicast on loopback works
// (flattest.Group skips, saying why, elsewhere).
func TestMulticast(t *testing.T) {
	group := flattest.Group(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr testenv.Buffer
	code := make(chan int, 1)
	addr := make(chan net.Addr, 1)
	go func() {
		code <- run(ctx, []string{"-listen", ":0", "-group", group, "-iface", "127.0.0.1",
			"-signals", "a:uint8", "-n", "1"}, &stdout, &stderr, func(a net.Addr) { addr <- a })
	}()
	var port int
	select {
	case a := <-addr:
		port = a.(*net.UDPAddr).Port
	case c := <-code:
		t.Fatalf("flatrecv exited %d before listening: %s", c, stderr.String())
	}
	snd, err := flattest.DialMulticast(group, "127.0.0.1", port)
	if err != nil {
		t.Fatal(err)
	}
	defer snd.Close()
	if _, err := snd.Write([]byte{42}); err != nil {
		t.Fatal(err)
	}
	c := testenv.Receive(t, code, 10*time.Second, "flatrecv to receive the datagram and exit")
	if c != 0 || stdout.String() != "a\n42\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", c, stdout.String(), stderr.String())
	}
}

func TestUsage(t *testing.T) {
	cases := []struct {
		args []string
		msg  string
	}{
		{nil, "-signals is required"},
		{[]string{"-signals", "a:uint8,a:int8"}, `signal "a" (row 2): duplicate name`},
		{[]string{"-signals", "a:uint8", "-endian", "middle"}, "unknown byte order"},
		{[]string{"-signals", "a:uint8", "-format", "xml"}, "want csv, json or stats"},
		{[]string{"-signals", "a:uint8", "-iface", "lo"}, "-iface goes with -group"},
		{[]string{"-signals", "a:uint8", "extra"}, "unexpected argument"},
		{[]string{"-signals", "a:uint8", "-bogus"}, "flag provided but not defined"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), c.args, &stdout, &stderr, nil); code != cli.ExitUsage {
			t.Errorf("%q: exit %d, want %d", c.args, code, cli.ExitUsage)
		}
		if !strings.Contains(stderr.String(), c.msg) {
			t.Errorf("%q: stderr %q, want %q", c.args, stderr.String(), c.msg)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-signals", "a:uint8", "-listen", "127.0.0.1:99999"}, &stdout, &stderr, nil); code != cli.ExitError {
		t.Errorf("bad listen address: exit %d", code)
	}
}

func TestCSVHeaderQuoting(t *testing.T) {
	l := layout(t, `x"y:uint8,V:uint8[2]`)
	if got := string(newRowWriter(l, false).header()); got != "\"x\"\"y\",V[0],V[1]\n" {
		t.Errorf("header %q", got)
	}
	if got := string(newRowWriter(l, true).row([]byte{1, 2, 3}, wire.Little)); got != `{"x\"y":1,"V":[2,3]}`+"\n" {
		t.Errorf("JSON row %q", got)
	}
}

// TestNamesEscaped: characters a terminal acts on (a C1 control, a
// bidirectional override) reach neither the CSV header nor the JSON keys
// as they are; JSON still reads back the exact name.
func TestNamesEscaped(t *testing.T) {
	l := layout(t, "a\u009b2J:uint8,b\u202ec:uint8")
	if got := string(newRowWriter(l, false).header()); got != `a\u009b2J,b\u202ec`+"\n" {
		t.Errorf("header %q", got)
	}
	row := newRowWriter(l, true).row([]byte{1, 2}, wire.Little)
	if got := string(row); got != `{"a\u009b2J":1,"b\u202ec":2}`+"\n" {
		t.Errorf("JSON row %q", got)
	}
	var v map[string]int
	if err := json.Unmarshal(row, &v); err != nil || v["a\u009b2J"] != 1 || v["b\u202ec"] != 2 {
		t.Errorf("JSON row reads back as %v, %v", v, err)
	}
}
