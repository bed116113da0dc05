package cli

import (
	"errors"
	"flag"
	"time"
)

// FlatFlags are the flags that describe a FlatUDP stream a command
// receives: -signals (its layout), -endian, and -group and -iface for a
// multicast stream.
type FlatFlags struct {
	Signals, Endian, Group, Iface string
}

// Register defines the flags on fs. listen is the flag of the address the
// command listens on; with, when not empty, is the flag they go with,
// named at the head of their help.
func (f *FlatFlags) Register(fs *flag.FlagSet, listen, with string) {
	head, ifaceHead := "", "-group: "
	if with != "" {
		head, ifaceHead = with+": ", with+" -group: "
	}
	fs.StringVar(&f.Signals, "signals", "", head+"the signal `list`, Name:type[count],... as in 'Counter:uint32,Sine:float32,Wave:uint16[4]' (as streamerd -describe prints a producer's)")
	fs.StringVar(&f.Endian, "endian", "little", head+"byte order of the datagrams, little or big")
	fs.StringVar(&f.Group, "group", "", head+"IPv4 multicast `group` to join, then only the port of "+listen+" counts (empty: unicast)")
	fs.StringVar(&f.Iface, "iface", "", ifaceHead+"local `address` or interface name to join on (empty: the kernel's choice)")
}

// Check refuses -iface without -group.
func (f *FlatFlags) Check() error {
	if f.Iface != "" && f.Group == "" {
		return errors.New("-iface goes with -group")
	}
	return nil
}

// Source is the one stream a receiving command (record, scope) takes:
// a UDPStreamer session (-udps, -timeout), FlatUDP datagrams (-flat and
// FlatFlags) or an RD100S-ENC-UDP stream (-rd100s).
type Source struct {
	UDPS, Flat, RD100S string // the address of the one given
	FlatFlags
	Timeout time.Duration // -udps: how long each CONNECT attempt waits
}

// Register defines the flags on fs.
func (s *Source) Register(fs *flag.FlagSet) {
	fs.StringVar(&s.UDPS, "udps", "", "UDPStreamer server `host:port` to hold a session with")
	fs.StringVar(&s.Flat, "flat", "", "local `host:port` to receive FlatUDP datagrams on")
	fs.StringVar(&s.RD100S, "rd100s", "", "local `host:port` to receive an RD100S-ENC-UDP stream on")
	s.FlatFlags.Register(fs, "-flat", "-flat")
	fs.DurationVar(&s.Timeout, "timeout", 2*time.Second, "-udps: how long each CONNECT attempt waits for the CONFIG")
}

// Given returns how many of -udps, -flat and -rd100s are given.
func (s *Source) Given() int {
	n := 0
	for _, a := range []string{s.UDPS, s.Flat, s.RD100S} {
		if a != "" {
			n++
		}
	}
	return n
}

// Check refuses anything but one source, FlatFlags without -flat, and a
// -timeout that is not positive. or, when not empty, is what the command
// takes instead of a source, named in the error ("-repair FILE").
func (s *Source) Check(or string) error {
	if s.Given() != 1 {
		msg := "give one source: -udps HOST:PORT, -flat HOST:PORT or -rd100s HOST:PORT"
		if or != "" {
			msg += " (or " + or + ")"
		}
		return errors.New(msg)
	}
	if s.Flat == "" && (s.Signals != "" || s.Group != "") {
		return errors.New("-signals and -group go with -flat")
	}
	if s.Timeout <= 0 {
		return errors.New("-timeout must be positive")
	}
	return s.FlatFlags.Check()
}
