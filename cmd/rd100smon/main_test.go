package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource/rd100s/wire"
	"github.com/streamerd/streamerd/internal/cli"
	client "github.com/streamerd/streamerd/internal/rd100slink"
	"github.com/streamerd/streamerd/internal/testenv"
)

func listen(t *testing.T) (*net.UDPConn, *net.UDPConn) {
	t.Helper()
	rx := testenv.Loopback(t)
	tx := testenv.Loopback(t)
	return rx, tx
}

func sendN(t *testing.T, tx *net.UDPConn, dst *net.UDPConn, n int, every time.Duration) {
	addr := dst.LocalAddr().(*net.UDPAddr).AddrPort()
	var b []byte
	for i := range n {
		if i == 5 {
			continue // one lost packet
		}
		b = wire.AppendPacket(b[:0], &wire.Packet{
			Seq: uint32(i), TUs: uint64(i) * 10000, AzMdeg: int32(i), Status: wire.AzValid | wire.ElValid | wire.Sim,
		})
		if _, err := tx.WriteToUDPAddrPort(b, addr); err != nil {
			t.Error(err)
			return
		}
		time.Sleep(every)
	}
}

// TestHelp: -h exits 0 with a usage that lists every flag and examples.
func TestHelp(t *testing.T) {
	testenv.Help(t, "rd100smon", func(args []string, stdout, stderr io.Writer) int {
		return run(context.Background(), args, stdout, stderr)
	}, "listen", "timeout", "rate", "tolerance", "freeze", "interval", "json", "n", "duration")
}

func TestMonitorJSON(t *testing.T) {
	rx, tx := listen(t)
	go sendN(t, tx, rx, 31, time.Millisecond)
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	o := options{timeout: 100 * time.Millisecond, rate: 100, freeze: 10, interval: 10 * time.Millisecond, json: true, n: 30}
	if err := monitor(ctx, rx, o, &out); err != nil {
		t.Fatal(err)
	}
	var last line
	sc := bufio.NewScanner(&out)
	lines := 0
	for sc.Scan() {
		lines++
		last = line{}
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
	}
	if last.Type != "summary" || last.Totals.Packets != 30 || last.Totals.GapEvents != 1 || last.Totals.Missing != 1 ||
		last.Totals.Sim != 30 || last.Totals.Period.Count != 28 || last.LastStatus != "AZ_VALID|EL_VALID|SIM" ||
		last.Run == nil || last.Run.Lost != 1 || last.State != "LOSSY" {
		t.Fatalf("summary %+v (%d lines)", last, lines)
	}
}

func TestMonitorTextDuration(t *testing.T) {
	rx, tx := listen(t)
	go sendN(t, tx, rx, 10, 0)
	var out bytes.Buffer
	o := options{timeout: 100 * time.Millisecond, rate: 100, freeze: 10, interval: 50 * time.Millisecond, duration: 400 * time.Millisecond}
	start := time.Now()
	if err := monitor(context.Background(), rx, o, &out); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < 400*time.Millisecond {
		t.Fatal("returned before -duration")
	}
	s := out.String()
	// At least the silence after the last packet; a sender stalled on a
	// loaded machine may add more.
	if !strings.Contains(s, "\nsummary ") || !strings.Contains(s, "pkts=9 gaps=1 missing=1") ||
		!regexp.MustCompile(`summary t=[0-9.]+s state=LOST`).MatchString(s) ||
		!regexp.MustCompile(`summary .* timeouts=[1-9]`).MatchString(s) {
		t.Fatalf("output:\n%s", s)
	}
}

func TestRunBadArgs(t *testing.T) {
	for _, args := range [][]string{
		{"-nope"}, {"extra"}, {"-interval", "0s"}, {"-rate", "0"}, {"-rate", "-5"}, {"-rate", "NaN"}, {"-rate", "+Inf"},
		{"-timeout", "-1s"}, {"-timeout", "0s"}, {"-tolerance", "0s"}, {"-freeze", "0"}, {"-duration", "-1s"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), args, io.Discard, &stderr); code != cli.ExitUsage || !strings.Contains(stderr.String(), args[0]) {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr.String())
		}
	}
	if code := run(context.Background(), []string{"-listen", "not an address"}, io.Discard, io.Discard); code != cli.ExitError {
		t.Errorf("bad address: exit %d", code)
	}
}

// TestHelpExplainsTheFields: -h exits 0 and says what the state words and
// the terse fields mean.
func TestHelpExplainsTheFields(t *testing.T) {
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, io.Discard, &stderr); code != cli.ExitOK {
		t.Errorf("-h: exit %d", code)
	}
	for _, s := range []string{"-rate Hz", "LOSSY", "oot: steps out of tolerance", "sim  ", "degraded  ", "discarded  ", "faults=a/e", "totals:"} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("-h lacks %q:\n%s", s, stderr.String())
		}
	}
}

// TestLossIsNotOK: one packet in five lost is LOSSY with loss=20.0%, in
// the interval's part of the line, and totals are labelled apart.
func TestLossIsNotOK(t *testing.T) {
	rx, tx := listen(t)
	go func() {
		addr := rx.LocalAddr().(*net.UDPAddr).AddrPort()
		var b []byte
		for i := range 51 {
			if i%5 == 4 {
				continue
			}
			b = wire.AppendPacket(b[:0], &wire.Packet{Seq: uint32(i), TUs: uint64(i) * 10000, AzMdeg: int32(i), Status: wire.AzValid | wire.ElValid})
			tx.WriteToUDPAddrPort(b, addr)
			time.Sleep(time.Millisecond)
		}
	}()
	var out bytes.Buffer
	o := options{timeout: time.Minute, rate: 100, tolerance: 2 * time.Millisecond, freeze: 10, interval: time.Hour, n: 41}
	if err := monitor(context.Background(), rx, o, &out); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !regexp.MustCompile(`summary t=[0-9.]+s state=LOSSY \| whole run: pkts=41 pkt/s=[0-9.]+ lost=10 loss=19\.6% .*\| totals: pkts=41 gaps=10 missing=10 `).MatchString(s) {
		t.Errorf("output:\n%s", s)
	}
	f := between(&client.Stats{}, &client.Stats{Packets: 80, Missing: 20, HaveLast: true}, 1, client.PeriodStats{})
	if f.LossPct != 20 || state(&client.Stats{HaveLast: true}, &f) != "LOSSY" {
		t.Errorf("loss %v%%, state %q", f.LossPct, state(&client.Stats{HaveLast: true}, &f))
	}
}
