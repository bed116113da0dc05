package config

import (
	"fmt"
	"net/netip"
	"strconv"
	"time"

	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/netthread"
	"github.com/streamerd/streamerd/rt/cpu"
)

// udpStreamer decodes the keys of a UDPStreamer datasource into its Config
// and returns what udpstreamer.Validate reports.
func udpStreamer(t *tbl, ds *DataSource) error {
	c := &UDPStreamer{Config: udpstreamer.Config{Name: ds.Name, Signals: ds.Signals}}
	udpStreamerKeys.read(t, c)
	ds.UDPStreamer = c
	return udpstreamer.Validate(&c.Config)
}

type udpsConfig = udpstreamer.Config

// udpStreamerKeys are the keys of a UDPStreamer datasource: the
// producer's (udpsConfigKeys) and StackSize.
var udpStreamerKeys = table[UDPStreamer]{
	name: ClassUDPStreamer,
	// The producer's Port 0 asks the kernel for any port: a file names one.
	defaults: func(c *UDPStreamer) { c.Port = udpstreamer.DefaultPort },
	keys: insertBefore(viaEach(udpsConfigKeys.keys, func(c *UDPStreamer) *udpsConfig { return &c.Config }), "HandOffDepth",
		stackSize(func(c *UDPStreamer) *int { return &c.StackSize },
			"≥ 0 (0 is the default); accepted for MARTe2 compatibility, informational (goroutine stacks grow)")),
}

// udpsConfigKeys are the keys of the producer's Config, which a Replay's
// server shares. A key the file leaves out keeps the Config's zero value,
// which udpstreamer.Validate and New read as the default; their rules are
// the producer's.
var udpsConfigKeys = table[udpsConfig]{
	name: ClassUDPStreamer,
	keys: []key[udpsConfig]{
		field("Port", port(), func(c *udpsConfig) *int { return &c.Port }).
			Doc("UDP port listened on"),
		field("MaxPayloadSize", anyInt(), func(c *udpsConfig) *int { return &c.MaxPayloadSize }).
			NonZero().Unit("bytes").Default(shown(udpsMaxPayloadSize)).
			Doc("18..65507, bytes of a whole datagram, 17-byte header included. An update (8-byte timestamp + wire size of every signal) may need at most 65535 fragments, and so may the CONFIG message (4 + 136 bytes per signal)."),
		field("Address", str(), func(c *udpsConfig) *string { return &c.Address }).
			Doc("IP address to bind; `\"\"` = all interfaces"),
		field("AllowedClients", prefixes(), func(c *udpsConfig) *[]netip.Prefix { return &c.AllowedClients }).
			Default("`[]`").
			Doc("CIDR prefixes (`\"127.0.0.0/8\"`) or addresses; a CONNECT from elsewhere is dropped and counted. **Empty = any client.** The server answers a small unauthenticated CONNECT with a stream of DATA, so an open server reachable from untrusted networks can be aimed at a third party by a spoofed source address (amplification); list the clients unless the port is firewalled or bound to loopback."),
		field("CPUMask", cpuMask(), func(c *udpsConfig) *cpu.Mask { return &c.CPUMask }).
			Doc("network thread's CPU mask, as for threads"),
		field("Priority", anyInt(), func(c *udpsConfig) *int { return &c.Priority }).
			Doc("0 (normal scheduling) or 1.." + strconv.Itoa(cpu.MaxPriority) + ": the network thread's SCHED_FIFO priority (needs root or `CAP_SYS_NICE`). A late wake-up of the network thread is what skips cycles at high rates; whether SCHED_FIFO wakes it sooner depends on the machine: on the 2-CPU VM of BENCHMARKS.md it lowered the burst's loss at 2 kHz from 150 to 50 per million and raised the loss of the 64 KiB updates in the same run. Measure with `BenchmarkSustained`'s `fifo` variants; a deeper `HandOffDepth` is the surer cure. Pin it apart from the RT thread."),
		field("HandOffDepth", countOrAuto(), func(c *udpsConfig) *int { return &c.HandOffDepth }).
			Doc(fmt.Sprintf("`\"auto\"` or 1..%d, cycles that may wait for the network thread. `\"auto\"` chooses the depth by time: the cycles of `HandOffTime` (500 ms) at the period of the thread that synchronises the datasource, within `HandOffBytes` (64 MiB), at least 1; `-describe`, `/status` and the start-up log say the depth chosen and the time it covers. `1` is the protocol's latest-value-wins: a cycle not yet taken when the next one comes is replaced and counted in `cycles_skipped_total`. With N, the cycles queue in a ring of N preallocated buffers and each goes out as its own update, so a network thread that wakes up late catches up instead of skipping; only when N wait is the oldest overwritten (and counted). `Synchronise()` costs the same at any depth while the network thread keeps up, and never waits; with the ring full it writes buffers that have left the cache (1.4× at 64 KiB); the ring costs N copies of the signal memory (at most %d MiB). A network thread held off its CPU longer than the ring covers skips cycles (BENCHMARKS.md, *Sustained throughput*).",
				udpsMaxHandOffDepth, udpsMaxHandOffBytes>>20)),
		field("HandOffTime", duration("200ms", "1s"), func(c *udpsConfig) *time.Duration { return &c.HandOffTime }).
			Default(fmt.Sprintf("`%q`", handOffTime.String())).
			Doc(fmt.Sprintf("duration, up to `%q`, with `HandOffDepth = \"auto\"` only: the time of cycles the ring holds, the longest stall of the network thread it rides out without skipping a cycle", maxHandOffTime.String())),
		field("HandOffBytes", anyInt(), func(c *udpsConfig) *int { return &c.HandOffBytes }).
			NonZero().Unit("bytes").Default(shown(handOffBytes)).
			Doc(fmt.Sprintf("1..%d, with `HandOffDepth = \"auto\"` only: the memory the ring may take (each cycle 8 bytes plus the signal memory); a ring it limits covers less than `HandOffTime`, and says so", udpsMaxHandOffBytes)),
		field("NetworkWait", named(netthread.WaitPaced, netthread.WaitSpin, netthread.WaitPark), func(c *udpsConfig) *netthread.WaitMode { return &c.NetworkWait }).
			Doc("how the network thread waits for the next cycle. `paced`: it sleeps until shortly before the next cycle is due (the thread's period), spins until the cycle comes, then parks; how early it wakes and how long it spins are learnt from the cycles it catches and misses, so `Synchronise()` finds it spinning and makes no system call, for a few percent of a CPU at 1 kHz (BENCHMARKS.md, *Waiting for the next cycle*). `spin`: it spins for `NetworkSpin` after every update, then parks. `park`: it parks at once, and every `Synchronise()` wakes it with a system call. `streamerd_udpstreamer_network_wakeups_total` counts the cycles that found it asleep."),
		field("NetworkSpin", duration("50us", "1ms"), func(c *udpsConfig) *time.Duration { return &c.NetworkSpin }).
			Doc(fmt.Sprintf("duration, 0 to `%q`: with `NetworkWait = \"spin\"` (which a `NetworkSpin` alone selects), how long the network thread spins looking for the next cycle before it parks on its semaphore. A cycle published during the spin is taken without a wake-up, which shortens `Synchronise()` to wire (BENCHMARKS.md) and spares `Synchronise()` the wake-up of a parked thread, at the price of keeping the network thread's CPU busy for up to this long after every update: at a period shorter than the spin, a whole CPU. Meant for a network thread pinned to a CPU of its own (`CPUMask`); without one, a warning.",
				netthread.MaxSpin.String())),
		field("SessionPolicy", oneOf("replace", "first"), func(c *udpsConfig) *string { return &c.SessionPolicy }).
			Default("`\"replace\"`").
			Doc("`replace`: a CONNECT from any allowed address takes the session (the protocol's behaviour). `first`: while a client holds the session, a CONNECT from another address and port is refused and counted (`connects_refused_total`), until that client sends DISCONNECT, its port answers ICMP port unreachable, or it goes silent (`SessionTimeout`). A guard against takeover by another local process; the current client itself may CONNECT again."),
		field("SendMethod", named(netthread.MethodAuto, netthread.MethodGSO, netthread.MethodSendmmsg, netthread.MethodSendto), func(c *udpsConfig) *netthread.SendMethod { return &c.SendMethod }).
			Doc("how the fragments of an update reach the kernel: `auto` (the fastest this kernel has: `gso`, else `sendmmsg`, else `sendto`), `gso` (one system call per update, the kernel cuts the fragments; Linux), `sendmmsg` (one system call per update; Linux) or `sendto` (one per fragment; every system). A method the system lacks fails the start with an error that says so. `/status` names the method in use (`send_method`)."),
		field("SessionTimeout", duration("50us", "1ms"), func(c *udpsConfig) *time.Duration { return &c.SessionTimeout }).
			Doc("duration ≥ 0, with `SessionPolicy = \"first\"` only: a client that has sent nothing (no CONNECT, ACK or DISCONNECT) for this long is silent and another may take the session; `\"0s\"` never. Clients of the protocol send nothing after their CONNECT unless made to (an ACK now and then), so with `\"0s\"` a client whose host vanishes without an ICMP answer (powered off, firewalled) keeps the session until streamerd restarts."),
	},
}

// shown is a default as the docs show it.
func shown(v any) string { return fmt.Sprintf("`%v`", v) }
