package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/udpstest"
)

// TestViewFormat: -format view draws frames in place (cursor home, lines
// cleared to their end) with one line per signal and the latest values, and
// leaves the cursor visible at the end.
func TestViewFormat(t *testing.T) {
	srv := udpstest.NewServer(t, testSigs(), 1400)
	r := runAgainst(t, srv, 3, "-format", "view", "-n", "3")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, termStart) || !strings.HasSuffix(r.stdout, termEnd) {
		t.Errorf("frame boundaries: %q", r.stdout)
	}
	frames := strings.Split(r.stdout, termHome)
	last := frames[len(frames)-1]
	for _, s := range []string{"udps  127.0.0.1:", "NAME  UNIT  VALUE", "Ch1   V     [0.5 1.5 2.5 2]", "M     -     [1 2 3 NaN]", "totals: updates 3  lost 0  skipped 0"} {
		if !strings.Contains(last, s) {
			t.Errorf("last frame lacks %q:\n%s", s, last)
		}
	}
	if strings.Contains(r.stdout, "#0 hrt=") {
		t.Error("the view printed table rows")
	}
}

// TestViewSilentAndCut: the view fits the terminal (lines cut to its width,
// signals beyond its height counted), says how long the stream has been
// silent, and shows the events.
func TestViewSilentAndCut(t *testing.T) {
	sigs := make([]datasource.Signal, 50)
	for i := range sigs {
		sigs[i] = datasource.Signal{Name: fmt.Sprintf("Signal%02d", i), Type: datasource.Float64, NumberOfDimensions: 1, NumberOfElements: 100}
	}
	srv := udpstest.NewServer(t, sigs, 1400)
	c, cfg := connected(t, srv, client.Options{Silence: 50 * time.Millisecond, Reconnect: true})
	var out bytes.Buffer
	v := newView(&out, func() (int, int) { return 12, 60 }, "srv", c, true)
	v.configure(context.Background(), cfg)
	p, _ := udpstest.Payload(sigs, 1, nil)
	srv.SendUpdate(0, p)
	var u client.Update
	c.SetReadDeadline(time.Now().Add(wait))
	if err := c.Next(&u); err != nil {
		t.Fatal(err)
	}
	v.capture(&u)
	v.draw(time.Now())
	frame := out.String()
	lines := strings.Split(frame, "\n")
	if len(lines) > 12 || !strings.Contains(frame, "Signal00  -     [0 0 0 0 ... 0 0] (100)") || !strings.Contains(frame, "... 43 more signals") {
		t.Errorf("%d lines:\n%s", len(lines), frame)
	}
	for _, l := range lines {
		l = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(l, termEOL+termEOS), termHome), termEOL)
		if utf8.RuneCountInString(l) > 60 {
			t.Errorf("line longer than the terminal: %q", l)
		}
	}
	c.SetReadDeadline(time.Now().Add(wait))
	if err := c.Next(&u); !errors.Is(err, client.ErrSilence) {
		t.Fatalf("Next: %v", err)
	}
	v.event("no DATA (silence)")
	out.Reset()
	v.draw(time.Now())
	if s := out.String(); !strings.Contains(s, "udps  srv  SILENT ") || !strings.Contains(s, "1 CONNECTs sent") || !strings.Contains(s, " no DATA (silence)") {
		t.Errorf("silent frame:\n%s", s)
	}
}
