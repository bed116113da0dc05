package config

import (
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/netthread"
)

func TestNetworkSpin(t *testing.T) {
	src := edit(t, baseUDPS, `Class = "UDPStreamer"`, "Class = \"UDPStreamer\"\nNetworkSpin = \"200us\"")
	f, err := Parse("s.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.DataSources[0].UDPStreamer.NetworkSpin; got != 200*time.Microsecond {
		t.Errorf("NetworkSpin %v", got)
	}
	want := `DataSources[0] "S": NetworkSpin: a network thread that spins without CPUMask`
	if w := Errors(f.Warnings).Error(); !strings.Contains(w, want) {
		t.Errorf("warnings:\n%s\nwant a line with\n%s", w, want)
	}
	src = edit(t, src, `NetworkSpin = "200us"`, "NetworkSpin = \"200us\"\nCPUMask = 2")
	if f, err = Parse("s.toml", []byte(src)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(Errors(f.Warnings).Error(), "NetworkSpin") {
		t.Errorf("warned about a pinned spinning thread: %v", Errors(f.Warnings))
	}
	src = edit(t, baseFlat, `Class = "FlatUDP"`, "Class = \"FlatUDP\"\nNetworkSpin = \"1ms\"\nCPUMask = 1")
	if f, err = Parse("f.toml", []byte(src)); err != nil {
		t.Fatal(err)
	}
	if got := f.DataSources[0].FlatUDP.NetworkSpin; got != time.Millisecond {
		t.Errorf("FlatUDP NetworkSpin %v", got)
	}
}

// TestHandOffAndWaitKeys reads the keys of the hand-off ring and the
// network thread's wait: "auto" is a depth of 0 (chosen by time), and a
// number is that depth.
func TestHandOffAndWaitKeys(t *testing.T) {
	src := edit(t, baseUDPS, `Class = "UDPStreamer"`, "Class = \"UDPStreamer\"\nHandOffDepth = \"auto\"\nHandOffTime = \"500ms\"\nHandOffBytes = 1048576\nNetworkWait = \"park\"")
	f, err := Parse("s.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c := f.DataSources[0].UDPStreamer
	if c.HandOffDepth != 0 || c.HandOffTime != 500*time.Millisecond || c.HandOffBytes != 1<<20 || c.NetworkWait != netthread.WaitPark {
		t.Errorf("UDPStreamer %+v", c)
	}
	src = edit(t, baseFlat, `Class = "FlatUDP"`, "Class = \"FlatUDP\"\nNumberOfBuffers = 64\nNetworkWait = \"spin\"\nNetworkSpin = \"20us\"\nCPUMask = 1")
	if f, err = Parse("f.toml", []byte(src)); err != nil {
		t.Fatal(err)
	}
	if fl := f.DataSources[0].FlatUDP; fl.NumberOfBuffers != 64 || fl.NetworkWait != netthread.WaitSpin {
		t.Errorf("FlatUDP %+v", fl)
	}
}
