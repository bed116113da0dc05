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
	if last.Type != "summary" || last.Stats.Packets != 30 || last.Stats.GapEvents != 1 || last.Stats.Missing != 1 ||
		last.Stats.Sim != 30 || last.Stats.Period.Count != 28 || last.LastState != "AZ_VALID|EL_VALID|SIM" {
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
		!regexp.MustCompile(`summary t=[0-9.]+s LOST`).MatchString(s) ||
		!regexp.MustCompile(`summary .* timeouts=[1-9]`).MatchString(s) {
		t.Fatalf("output:\n%s", s)
	}
}

func TestRunBadArgs(t *testing.T) {
	for _, args := range [][]string{{"-nope"}, {"extra"}, {"-interval", "0s"}, {"-listen", "not an address"}} {
		if code := run(args, io.Discard, io.Discard); code == 0 {
			t.Errorf("%q: exit 0", args)
		}
	}
}
