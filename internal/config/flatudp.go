package config

import (
	"fmt"
	"net/netip"
	"strconv"
	"time"

	"github.com/streamerd/streamerd/datasource/flatudp"
	"github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/netthread"
	"github.com/streamerd/streamerd/rt/cpu"
)

// flatUDP decodes the keys of a FlatUDP datasource into its Config and
// returns what flatudp.Validate reports.
func flatUDP(t *tbl, ds *DataSource) error {
	c := &FlatUDP{Config: flatudp.Config{Name: ds.Name, Signals: ds.Signals}}
	flatUDPKeys.read(t, c)
	ds.FlatUDP = c
	return flatudp.Validate(&c.Config)
}

type flatConfig = FlatUDP

// multicast reports whether the Address of c is a multicast group: TTL and
// Loopback change nothing for a unicast one (the producer ignores them;
// Interface there is the producer's error).
func multicast(c *flatConfig) bool {
	a, err := netip.ParseAddr(c.Address)
	return err != nil || a.Unmap().IsMulticast()
}

// flatUDPKeys are the keys of a FlatUDP datasource; their rules are the
// producer's (flatudp.Validate).
var flatUDPKeys = table[flatConfig]{
	name: ClassFlatUDP,
	// The Config's zero TTL and Loopback are used as given: the file's
	// defaults are those of a multicast sender.
	defaults: func(c *flatConfig) { c.Port, c.TTL, c.Loopback = flatudp.DefaultPort, 1, true },
	keys: []key[flatConfig]{
		field("Address", str(), func(c *flatConfig) *string { return &c.Address }).
			Default("required").
			Doc("destination IP address: unicast or a multicast group"),
		field("Port", port(), func(c *flatConfig) *int { return &c.Port }),
		field("ExecutionMode", oneOf("IndependentThread", "RealTimeThread"), func(c *flatConfig) *string { return &c.ExecutionMode }).
			Default("`\"IndependentThread\"`").
			Doc("`RealTimeThread`: one datagram per cycle. `IndependentThread` (MARTe2's default): cycles go into a ring; every cycle whose `Trigger` is non-zero is sent with its pre- and post-trigger cycles. In both modes the send happens on a sender thread, never on the RT thread: the RT thread copies the cycle into a lock-free ring and wakes the sender. A full ring refuses the newest cycle and counts it (`streamerd_flatudp_overflows_total`); MARTe2 fails the cycle with \"Buffer overrun\" and can lock up, streamerd keeps sending."),
		field("NumberOfPreTriggers", anyInt(), func(c *flatConfig) *int { return &c.NumberOfPreTriggers }).
			Doc("≥ 0, less than `NumberOfBuffers`; IndependentThread only (non-zero in `RealTimeThread` mode is an error)"),
		field("NumberOfPostTriggers", anyInt(), func(c *flatConfig) *int { return &c.NumberOfPostTriggers }).
			Doc("≥ 0; IndependentThread only (non-zero in `RealTimeThread` mode is an error)"),
		field("NumberOfBuffers", countOrAuto(), func(c *flatConfig) *int { return &c.NumberOfBuffers }).
			Default("`\"auto\"`").
			Doc(fmt.Sprintf("`\"auto\"` or 1..%d, ring size in cycles: the pre-trigger history (IndependentThread) and the queue between the RT thread and the sender thread; at most %d MiB of ring (each slot the datagram size rounded up to 128 bytes). A number is exactly that length, MARTe2's meaning (the MARTe2 importer always writes one in IndependentThread mode). `\"auto\"` is `NumberOfPreTriggers` plus the cycles of `HandOffTime` (500 ms) at the period of the thread that synchronises the datasource, within `HandOffBytes` (64 MiB): MARTe2 sends RealTimeThread cycles from the RT thread itself and has no queue to keep the length of; `-describe`, `/status` and the start-up log say the length chosen and the time its queue covers",
				flatMaxBuffers, flatMaxRingBytes>>20)),
		field("HandOffTime", duration("200ms", "1s"), func(c *flatConfig) *time.Duration { return &c.HandOffTime }).
			Default(fmt.Sprintf("`%q`", handOffTime.String())).
			Doc("as for UDPStreamer, with `NumberOfBuffers = \"auto\"` only: the time of cycles the ring queues for the sender thread beyond the pre-trigger history"),
		field("HandOffBytes", anyInt(), func(c *flatConfig) *int { return &c.HandOffBytes }).
			NonZero().Unit("bytes").Default(shown(handOffBytes)).
			Doc(fmt.Sprintf("1..%d, with `NumberOfBuffers = \"auto\"` only: the memory the whole ring may take", flatMaxRingBytes)),
		field("ByteOrder", named(wire.Little, wire.Big), func(c *flatConfig) *wire.ByteOrder { return &c.ByteOrder }),
		field("TTL", anyInt(), func(c *flatConfig) *int { return &c.TTL }).
			Only(multicast, "applies only to a multicast Address").
			Doc("0..255; multicast `Address` only"),
		field("Interface", str(), func(c *flatConfig) *string { return &c.Interface }).
			Doc("multicast interface (an IPv4 address or an interface name that exists); `\"\"` = the kernel's choice; multicast `Address` only"),
		field("Loopback", boolean(), func(c *flatConfig) *bool { return &c.Loopback }).
			Only(multicast, "applies only to a multicast Address").
			Doc("multicast loopback; multicast `Address` only"),
		field("CPUMask", cpuMask(), func(c *flatConfig) *cpu.Mask { return &c.CPUMask }).
			Doc("sender thread's CPU mask"),
		field("Priority", anyInt(), func(c *flatConfig) *int { return &c.Priority }).
			Doc("0 (normal scheduling) or 1.." + strconv.Itoa(cpu.MaxPriority) + ": the sender thread's SCHED_FIFO priority, as for UDPStreamer"),
		field("NetworkWait", named(netthread.WaitPaced, netthread.WaitSpin, netthread.WaitPark), func(c *flatConfig) *netthread.WaitMode { return &c.NetworkWait }).
			Doc("as for UDPStreamer, for the sender thread (`streamerd_flatudp_network_wakeups_total`)"),
		field("NetworkSpin", duration("50us", "1ms"), func(c *flatConfig) *time.Duration { return &c.NetworkSpin }).
			Doc("as for UDPStreamer, for the sender thread"),
		stackSize(func(c *flatConfig) *int { return &c.StackSize }, "informational, as for UDPStreamer"),
	},
	finish: func(t *tbl, c *flatConfig) {
		// A misspelt mode is reported and becomes an invalid mode, so
		// neither mode's rules are checked against it.
		if t.failed("ExecutionMode") {
			c.ExecutionMode = "invalid"
		}
	},
}
