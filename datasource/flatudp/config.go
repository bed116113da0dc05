package flatudp

import (
	"encoding/binary"
	"errors"
	"net/netip"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp/internal/mcast"
	"github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/datasource/internal/handoff"
	"github.com/streamerd/streamerd/datasource/internal/rules"
)

// Defaults of the datasource parameters.
const (
	// DefaultPort is MARTe2 UDPSender's port, the destination port when
	// Config.Port is 0 and the port receivers listen on by default.
	DefaultPort = 44488
)

// Limits of the ring.
const (
	// maxNumberOfBuffers bounds NumberOfBuffers (the config loader's bound).
	maxNumberOfBuffers = 1 << 20
	// maxRingBytes bounds the ring memory, NumberOfBuffers slots of the
	// datagram size rounded up to a cache line.
	maxRingBytes = 256 << 20
)

// TriggerSignal is the name of the first signal in IndependentThread mode.
const triggerSignal = "Trigger"

// The two execution modes of MARTe2's UDPSender (Config.ExecutionMode).
const (
	// independentThread sends only the cycles around a non-zero Trigger
	// (the first signal): NumberOfPreTriggers before it, the trigger cycle
	// and NumberOfPostTriggers after it. MARTe2's default.
	independentThread = "IndependentThread"
	// realTimeThread sends every cycle.
	realTimeThread = "RealTimeThread"
)

// independent reports whether c is in IndependentThread mode ("" too),
// realTime whether in RealTimeThread mode: an invalid mode is in neither.
func (c *Config) independent() bool {
	return c.ExecutionMode == "" || c.ExecutionMode == independentThread
}
func (c *Config) realTime() bool { return c.ExecutionMode == realTimeThread }

// mode returns the name of c's mode, IndependentThread for "".
func (c *Config) mode() string {
	if c.ExecutionMode == "" {
		return independentThread
	}
	return c.ExecutionMode
}

// Config is the configuration of a FlatUDP sender, with MARTe2 UDPSender's
// parameter names. A zero Port or NumberOfBuffers means its
// default; every other field is used as given (the config loader applies
// TTL = 1 and Loopback = true for a multicast Address).
type Config struct {
	Name string
	// Address is the destination: a unicast IP address or an IPv4
	// multicast group. Required.
	Address string
	// Port is the destination port, 1..65535 (DefaultPort when 0).
	Port int
	// ExecutionMode is MARTe2 UDPSender's: "IndependentThread" (or "",
	// MARTe2's default) sends only the cycles around a non-zero Trigger
	// (the first signal): NumberOfPreTriggers before it, the trigger
	// cycle and NumberOfPostTriggers after it; "RealTimeThread" sends
	// every cycle.
	ExecutionMode string
	// NumberOfPreTriggers and NumberOfPostTriggers are the cycles sent
	// before and after a triggered cycle (IndependentThread only; 0 in
	// RealTimeThread mode).
	NumberOfPreTriggers, NumberOfPostTriggers int
	// NumberOfBuffers is the ring length in cycles: the pre-trigger history
	// (IndependentThread) and the queue between the RT thread and the
	// sender thread. A number is exactly that length, MARTe2's meaning
	// (more than NumberOfPreTriggers in IndependentThread mode). 0, the
	// default, chooses it by time: NumberOfPreTriggers plus the cycles of
	// HandOffTime at CyclePeriod, within HandOffBytes
	// (docs/config.md, NumberOfBuffers).
	NumberOfBuffers int
	// NetworkThread places and paces the sender thread (CPUMask,
	// Priority, NetworkWait...) and sizes an automatic ring: HandOffTime
	// is the time of cycles it queues for the sender thread, HandOffBytes
	// the memory the whole ring may take, pre-trigger history included.
	// Its fields are promoted.
	datasource.NetworkThread
	// ByteOrder of every element on the wire; Little, the zero value, is
	// what MARTe2 sends on x86.
	ByteOrder wire.ByteOrder
	// TTL (0..255), Interface (a local IPv4 address or an interface name;
	// "" leaves the kernel's choice) and Loopback (deliver to receivers on
	// this host too) apply to a multicast Address only. Interface must be
	// empty for a unicast Address; TTL and Loopback are then ignored.
	TTL       int
	Interface string
	Loopback  bool
	// Signals in declaration order; in IndependentThread mode the first is
	// the scalar uint8 "Trigger", part of the payload.
	Signals []datasource.Signal
}

// Validate checks every rule of the FlatUDP datasource and returns all
// broken rules joined (each a *datasource.ConfigError naming the
// datasource, the signal, the parameter and the rule), or nil; a nil cfg
// is an error.
func Validate(cfg *Config) error {
	if cfg == nil {
		return errors.New("flatudp: Validate: nil Config")
	}
	c := cfg.withDefaults()
	e := &rules.ConfigErrors{DataSource: c.Name, Signals: c.Signals}
	c.checkDestination(e)
	c.checkRing(e)
	if c.ByteOrder != wire.Little && c.ByteOrder != wire.Big {
		e.Param("ByteOrder", "must be little or big, got %v", c.ByteOrder)
	}
	if err := rules.ValidateSignals(c.Name, c.Signals); err != nil {
		e.Add(err)
		return e.Err()
	}
	c.checkSignals(e)
	return e.Err()
}

// checkDestination checks Address, Port and the multicast parameters.
func (c *Config) checkDestination(e *rules.ConfigErrors) {
	if c.Port < 1 || c.Port > 65535 {
		e.Param("Port", "must be 1..65535, got %d", c.Port)
	}
	if c.TTL < 0 || c.TTL > 255 {
		e.Param("TTL", "must be 0..255, got %d", c.TTL)
	}
	if c.Address == "" {
		e.Param("Address", "is required: the destination IP address (unicast or multicast group)")
		return
	}
	a, err := netip.ParseAddr(c.Address)
	if err != nil {
		e.Param("Address", "must be an IP address (unicast or multicast group), got %q", c.Address)
		return
	}
	dst := a.Unmap()
	switch {
	case dst.IsUnspecified():
		e.Param("Address", "must be a destination, not the unspecified address %s", dst)
	case dst.IsMulticast() && !dst.Is4():
		e.Param("Address", "a multicast group must be IPv4 (224.0.0.0/4), got %s", dst)
	case !dst.IsMulticast():
		if c.Interface != "" {
			e.Param("Interface", "applies only to a multicast Address; %s is unicast", dst)
		}
	case c.TTL >= 0 && c.TTL <= 255:
		if _, err := mcast.SendControl(c.Interface, c.TTL, c.Loopback); err != nil {
			e.Param("Interface", "%v", err)
		}
	}
}

// checkRing checks the execution mode, the trigger windows and the ring
// length.
func (c *Config) checkRing(e *rules.ConfigErrors) {
	if !c.independent() && !c.realTime() {
		e.Param("ExecutionMode", "invalid mode %q (want IndependentThread or RealTimeThread)", c.ExecutionMode)
	}
	for _, w := range []struct {
		key string
		n   int
	}{{"NumberOfPreTriggers", c.NumberOfPreTriggers}, {"NumberOfPostTriggers", c.NumberOfPostTriggers}} {
		switch {
		case w.n < 0:
			e.Param(w.key, "must not be negative, got %d", w.n)
		case w.n != 0 && c.realTime():
			e.Param(w.key, "applies only to ExecutionMode IndependentThread (RealTimeThread sends every cycle)")
		}
	}
	switch {
	case c.NumberOfBuffers < 0:
		e.Param("NumberOfBuffers", "must be 1..%d, or 0 for a length chosen by time, got %d", maxNumberOfBuffers, c.NumberOfBuffers)
	case c.NumberOfBuffers > maxNumberOfBuffers:
		e.Param("NumberOfBuffers", "must be 1..%d, got %d", maxNumberOfBuffers, c.NumberOfBuffers)
	case c.NumberOfBuffers == 0:
		if c.NumberOfPreTriggers >= maxNumberOfBuffers {
			e.Param("NumberOfPreTriggers", "must be less than %d, got %d", maxNumberOfBuffers, c.NumberOfPreTriggers)
		}
	case c.independent() && c.NumberOfPreTriggers >= c.NumberOfBuffers:
		e.Param("NumberOfPreTriggers", "must be less than NumberOfBuffers (%d), got %d: the ring keeps the pre-trigger cycles and needs one slot more", c.NumberOfBuffers, c.NumberOfPreTriggers)
	}
	handoff.CheckThread(e, &c.NetworkThread, maxRingBytes)
	if c.NumberOfBuffers != 0 && (c.HandOffTime != 0 || c.HandOffBytes != 0) {
		e.Param("NumberOfBuffers", "is %d: HandOffTime and HandOffBytes size an automatic ring only (NumberOfBuffers left out)", c.NumberOfBuffers)
	}
}

// ringSize returns the ring length in cycles for slots of size bytes, and
// the queue of it that waits for the sender thread: NumberOfBuffers when
// given, else the pre-trigger history plus the cycles of HandOffTime at
// CyclePeriod within HandOffBytes. Its Depth is the queue's, beyond the
// pre-trigger cycles (in RealTimeThread mode the whole ring).
func (c *Config) ringSize(size int) (buffers int, queue handoff.Size) {
	keep := 0
	if c.independent() {
		keep = max(c.NumberOfPreTriggers, 0)
	}
	stride := slotStride(size)
	if c.NumberOfBuffers > 0 {
		return c.NumberOfBuffers, handoff.Auto(max(c.NumberOfBuffers-keep, 1), c.CyclePeriod, 0, stride, 0, maxNumberOfBuffers)
	}
	budget := c.HandOffBytes
	if budget == 0 {
		budget = handoff.DefaultBytes
	}
	queue = handoff.Auto(0, c.CyclePeriod, c.HandOffTime, stride, max(budget-keep*stride, stride), maxNumberOfBuffers-keep)
	return keep + queue.Depth, queue
}

// checkSignals checks the FlatUDP rules of signals that pass the rules
// every producer shares: element counts, the datagram size, the trigger,
// the signals string and the ring memory.
func (c *Config) checkSignals(e *rules.ConfigErrors) {
	sigs := c.Signals
	total := 0
	for i := range sigs {
		if n := sigs[i].Elements(); n < 1 || n > wire.MaxCount {
			e.Signal(i, "NumberOfElements", "must be 1..%d for FlatUDP, got %d", wire.MaxCount, n)
		}
		total += sigs[i].ByteSize()
	}
	if total > wire.MaxDatagramSize {
		e.Param("Signals", "a datagram of %d bytes exceeds the UDP limit of %d bytes", total, wire.MaxDatagramSize)
	}
	if s := &sigs[0]; c.independent() && (s.Name != triggerSignal || s.Type != datasource.Uint8 || s.Elements() != 1) {
		e.Signal(0, "Name", "in IndependentThread mode the first signal must be the scalar uint8 %q, got %q %v[%d]", triggerSignal, s.Name, s.Type, s.Elements())
	}
	if e.Len() > 0 {
		return
	}
	// The signals string's own rules (names free of ",:[]", spaces at the
	// ends and control characters), so SignalsString round-trips.
	if _, err := wire.NewLayout(flatSignals(sigs)); err != nil {
		var se interface {
			Row() int
			Rule() string
		}
		if errors.As(err, &se) && se.Row() >= 0 {
			e.Signal(se.Row(), "Name", "%s", se.Rule())
		} else {
			e.Param("Signals", "%v", err)
		}
		return
	}
	if n, _ := c.ringSize(total); n*slotStride(total) > maxRingBytes {
		e.Param("NumberOfBuffers", "%d buffers of %d bytes exceed the ring limit of %d MiB", n, slotStride(total), maxRingBytes>>20)
	}
}

// flatSignals converts validated signals to a wire signal list.
func flatSignals(sigs []datasource.Signal) []wire.Signal {
	out := make([]wire.Signal, len(sigs))
	for i := range sigs {
		out[i] = wire.Signal{Name: sigs[i].Name, Type: sigs[i].Type, Count: sigs[i].Elements()}
	}
	return out
}

// nativeLittleEndian is checked in New: signal memory is native order and
// the byte-order conversion starts from little-endian.
var nativeLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// withDefaults returns c with every zero field that has a default set to
// it.
func (c Config) withDefaults() Config {
	rules.SetDefault(&c.Port, DefaultPort)
	return c
}
