package udpstreamer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/internal/handoff"
	"github.com/streamerd/streamerd/datasource/internal/rules"
	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
	"github.com/streamerd/streamerd/netthread"
)

// Defaults of the datasource parameters (docs/config.md, Class UDPStreamer).
const (
	DefaultPort           = 44500
	defaultMaxPayloadSize = 1400
	// lockTimeout bounds how long Synchronise waits for the FastLock.
	// The network thread holds it only to swap two buffer headers.
	lockTimeout = 100 * time.Microsecond
	// maxHandOffDepth bounds HandOffDepth.
	maxHandOffDepth = 65536
	// maxHandOffBytes bounds the memory of the hand-off ring: HandOffDepth
	// cycles of signal memory plus the 8-byte timestamp each.
	maxHandOffBytes = 256 << 20
)

// Config is the configuration of a UDPStreamer. The zero value of a field
// means its default, except Port, where 0 asks the kernel for a free port
// (the config loader applies the 44500 default; tests use 0).
type Config struct {
	Name string
	// Address is the local address to bind ("" binds every address).
	Address string
	Port    int
	// MaxPayloadSize bounds every datagram, header included: 18..65507.
	MaxPayloadSize int
	// AllowedClients, when not empty, are the only source prefixes whose
	// CONNECT is accepted. Without it anyone who can reach the port can
	// point the stream at any address, including a spoofed victim.
	AllowedClients []netip.Prefix
	// SendMethod is how fragments reach the kernel: netthread.MethodAuto
	// (the zero value) picks the fastest this kernel has, GSO, then
	// sendmmsg, then a sendto loop; the TOML key SendMethod and /status's
	// send_method spell them "auto", "gso", "sendmmsg", "sendto". A value
	// that is none of these is refused by Validate and New.
	SendMethod netthread.SendMethod
	// HandOffDepth is how many cycles may wait for the network thread
	// (1..65536), or 0 (the default) to choose it by time: the
	// cycles of HandOffTime at CyclePeriod, within HandOffBytes
	// (docs/config.md, HandOffDepth). With 1, a cycle the network thread has
	// not taken when the next Synchronise comes is replaced and counted as
	// skipped. With N, cycles queue in a ring of N preallocated buffers and
	// each is sent as its own DATA update, so a network thread that wakes
	// up late catches up instead of skipping; only when all N wait is the
	// oldest overwritten (and counted as skipped). Synchronise costs the
	// same at any depth; the ring costs N copies of signal memory.
	HandOffDepth int
	// NetworkThread places and paces the network thread (CPUMask,
	// Priority, NetworkWait...) and sizes an automatic hand-off ring
	// (HandOffTime, HandOffBytes); its fields are promoted.
	datasource.NetworkThread
	// SessionPolicy says what a CONNECT from another address does while a
	// client holds the session: "replace" (or "", the protocol's
	// behaviour) gives it the session; "first" refuses it, and counts it,
	// until the client disconnects, its port becomes unreachable, or it
	// goes silent.
	SessionPolicy string
	// SessionTimeout, under SessionPolicy "first", is how long a client may
	// send nothing (no CONNECT, ACK or DISCONNECT) before it counts as
	// silent and another may take the session; 0 never. Clients send
	// nothing after their CONNECT unless made to (an ACK now and then).
	SessionTimeout time.Duration
	Signals        []datasource.Signal
}

// The session policies (Config.SessionPolicy).
const (
	policyReplace = "replace"
	policyFirst   = "first"
)

// AppendConfig appends to b the CONFIG message a Streamer of sigs sends
// (docs/udpstreamer.md, "CONFIG"): the signal count, then one 136-byte
// record per signal. sigs must pass the protocol's rules (names and units
// that fit their fields, numeric types, shapes, quantisation ranges, time
// signals named among sigs); a broken one is an error and b is returned
// unchanged. A program that serves or records a stream without a Streamer
// (a test server, a recorder) writes the CONFIG with it; a client parses
// it with client.ParseConfig.
func AppendConfig(b []byte, sigs []datasource.Signal) ([]byte, error) {
	names := rules.Names(sigs)
	for i := range sigs {
		if t := sigs[i].TimeSignal; t != "" {
			if _, ok := names[t]; !ok {
				return b, fmt.Errorf("%w: signal %d (%q): TimeSignal: names no signal: %q", frame.ErrConfig, i, sigs[i].Name, t)
			}
		}
	}
	return frame.AppendConfig(b, frame.Records(sigs))
}

// Validate checks every rule of the UDPStreamer datasource and returns all
// broken rules joined (each a *datasource.ConfigError naming the datasource,
// the signal, the parameter and the rule), or nil; a nil cfg is an error.
func Validate(cfg *Config) error {
	if cfg == nil {
		return errors.New("udpstreamer: Validate: nil Config")
	}
	c := cfg.withDefaults()
	e := &rules.ConfigErrors{DataSource: c.Name, Signals: c.Signals}
	if c.Port < 0 || c.Port > 65535 {
		e.Param("Port", "must be 0..65535, got %d", c.Port)
	}
	if c.MaxPayloadSize < frame.MinMaxPayloadSize || c.MaxPayloadSize > frame.MaxMaxPayloadSize {
		e.Param("MaxPayloadSize", "must be %d..%d (the 17-byte header plus at least one byte, at most the IPv4 UDP payload limit), got %d",
			frame.MinMaxPayloadSize, frame.MaxMaxPayloadSize, c.MaxPayloadSize)
	}
	checkHandOff(e, &c)
	if _, err := c.SendMethod.MarshalText(); err != nil {
		e.Param("SendMethod", "must be %s, %s, %s or %s, got %v", netthread.MethodAuto, netthread.MethodGSO, netthread.MethodSendmmsg, netthread.MethodSendto, c.SendMethod)
	}
	if c.SessionPolicy != "" && c.SessionPolicy != policyReplace && c.SessionPolicy != policyFirst {
		e.Param("SessionPolicy", "must be replace or first, got %q", c.SessionPolicy)
	}
	switch {
	case c.SessionTimeout < 0:
		e.Param("SessionTimeout", "must not be negative, got %v", c.SessionTimeout)
	case c.SessionTimeout > 0 && c.SessionPolicy != policyFirst:
		e.Param("SessionTimeout", "applies only to SessionPolicy first (with replace any CONNECT takes the session)")
	}
	if c.Address != "" {
		if _, err := netip.ParseAddr(c.Address); err != nil {
			e.Param("Address", "must be an IP address to bind, got %q", c.Address)
		}
	}
	for _, p := range c.AllowedClients {
		if !p.IsValid() {
			e.Param("AllowedClients", "invalid prefix %v", p)
		}
	}
	e.Add(rules.ValidateSignals(c.Name, c.Signals))
	for i := range c.Signals {
		checkTimeSignal(e, i)
	}
	// The protocol's own rules, on the CONFIG records of the signals that
	// passed the rules above.
	for _, se := range frame.SignalErrors(frame.Records(c.Signals)) {
		if !e.Failed(se.Index) {
			e.Signal(se.Index, se.Parameter, "%s", se.Rule)
		}
	}
	checkHandOffSize(e, &c)
	if e.Len() == 0 {
		checkFragments(e, c.MaxPayloadSize)
	}
	return e.Err()
}

// checkHandOff checks HandOffDepth and the sizing of an automatic ring.
func checkHandOff(e *rules.ConfigErrors, c *Config) {
	handoff.CheckThread(e, &c.NetworkThread, maxHandOffBytes)
	if c.HandOffDepth != 0 && (c.HandOffTime != 0 || c.HandOffBytes != 0) {
		e.Param("HandOffDepth", "is %d: HandOffTime and HandOffBytes size an automatic ring only (HandOffDepth 0)", c.HandOffDepth)
	}
	switch depth := c.HandOffDepth; {
	case depth < 0:
		e.Param("HandOffDepth", "must be 1..%d, or 0 for a depth chosen by time, got %d", maxHandOffDepth, depth)
	case depth > maxHandOffDepth:
		e.Param("HandOffDepth", "must be 1..%d, got %d", maxHandOffDepth, depth)
	}
}

// checkHandOffSize checks the memory the ring takes, once every signal has
// passed its rules (a signal of a size refused there is not counted twice).
func checkHandOffSize(e *rules.ConfigErrors, c *Config) {
	depth := c.HandOffDepth
	if depth < 0 || depth > maxHandOffDepth {
		return // refused by checkHandOff
	}
	for i := range e.Signals {
		if e.Failed(i) {
			return
		}
	}
	size := slotSize(e.Signals)
	if depth == 0 {
		depth = c.handOff(size).Depth
	}
	if size > maxHandOffBytes/depth {
		e.Param("HandOffDepth", "%d cycles of %d bytes exceed the hand-off limit of %d MiB", depth, size, maxHandOffBytes>>20)
	}
}

// slotSize returns the bytes of one slot of the hand-off ring: the
// timestamp, then signal memory (each signal's size clipped, so the sum
// cannot overflow).
func slotSize(sigs []datasource.Signal) int {
	size := stampSize
	for i := range sigs {
		size += min(max(sigs[i].ByteSize(), 0), maxHandOffBytes)
	}
	return size
}

// handOff returns the size of the hand-off ring for slots of size bytes.
func (c *Config) handOff(size int) handoff.Size {
	return handoff.Auto(c.HandOffDepth, c.CyclePeriod, c.HandOffTime, size, c.HandOffBytes, maxHandOffDepth)
}

// checkFragments checks that the DATA payload and the CONFIG message each
// fit in 65535 datagrams of maxPayloadSize bytes.
func checkFragments(e *rules.ConfigErrors, maxPayloadSize int) {
	chunk := maxPayloadSize - frame.HeaderSize
	payload := frame.DataPayloadSize(frame.Records(e.Signals))
	if _, err := frame.NumFragments(payload, maxPayloadSize); err != nil {
		e.Param("MaxPayloadSize", "the DATA payload of %d bytes needs more than 65535 fragments of %d bytes", payload, chunk)
	}
	cfgSize := frame.ConfigSize(len(e.Signals))
	if _, err := frame.NumFragments(cfgSize, maxPayloadSize); err != nil {
		e.Param("MaxPayloadSize", "the CONFIG message of %d bytes (%d signals) needs more than 65535 fragments of %d bytes", cfgSize, len(e.Signals), chunk)
	}
}

// checkTimeSignal checks what the CONFIG record of signal i cannot carry:
// its time signal is named, by a name of this datasource, only when
// TimeMode needs one, and a time mode other than PacketTime is for arrays.
func checkTimeSignal(e *rules.ConfigErrors, i int) {
	s := &e.Signals[i]
	switch {
	case s.TimeMode > datasource.LastSample:
	case s.TimeMode == datasource.PacketTime:
		if s.TimeSignal != "" {
			e.Signal(i, "TimeSignal", "is set but TimeMode is PacketTime; set TimeMode to FullArray, FirstSample or LastSample")
		}
	case s.TimeSignal == "":
		e.Signal(i, "TimeSignal", "is required when TimeMode is %v", s.TimeMode)
	case !found(e.Lookup(s.TimeSignal)):
		e.Signal(i, "TimeSignal", "names no signal of this datasource: %q", s.TimeSignal)
	}
	if s.TimeMode <= datasource.LastSample && s.TimeMode != datasource.PacketTime && s.Elements() < 2 {
		e.Signal(i, "TimeMode", "%v applies to arrays (NumberOfElements > 1); a scalar uses PacketTime", s.TimeMode)
	}
}

func found(_ int, ok bool) bool { return ok }

// nativeLittleEndian is checked in New: raw signals go to the wire as they
// lie in signal memory, which is native order, and the protocol is
// little-endian.
var nativeLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// withDefaults returns c with every zero field that has a default set to
// it.
func (c Config) withDefaults() Config {
	rules.SetDefault(&c.MaxPayloadSize, defaultMaxPayloadSize)
	return c
}
