// Package flatudp is the FlatUDP output DataSource, MARTe2's UDPSender: each datagram is one cycle of signal memory, the signals packed in declaration order with no padding and no header.
//
// A Go program embedding it follows docs/embedding.md, as for every
// producer: New, Start, a broker, Execute once per cycle, Close.
//
// The wire format is the wire package's: a receiver decodes it with a
// wire.Layout built from the string SignalsString returns
// ("Trigger:uint8,Ia:float32,Wave:float32[16]"). ByteOrder little (the
// default, what MARTe2 sends on x86) sends signal memory as it lies; big
// reverses the bytes of every element on the sender thread.
//
// # Threads
//
// The RT thread's share is Synchronise: copy signal memory into the next
// slot of a lock-free single-producer single-consumer ring (NumberOfBuffers
// slots, or by default the pre-trigger history plus HandOffTime of cycles
// at CyclePeriod; preallocated, each a cache-line multiple apart; head and
// tail are atomics on their own cache lines), publish it, post the
// EventSem. It never waits, never allocates and makes no system call
// other than the futex wake of a sender thread it finds asleep.
//
// The sender thread (a netthread pinned with CPUMask, in both modes) waits
// on the EventSem as NetworkWait says (by default paced: asleep until
// shortly before the next cycle is due, then spinning, so the post finds
// it awake), with a 20 ms timeout, and on every wake-up drains every
// published cycle: it decides which to send, byte-swaps into its own buffer
// if big-endian, writes the datagram with one system call on an
// unconnected socket, and releases the slots. It never sleeps with cycles queued: the
// RT side posts on every cycle, refused or not, and the timeout covers even
// a lost wake-up, so the lock-up MARTe2's UDPSender can suffer after a
// "Buffer overrun" (the RT side skipping the post) cannot happen here.
//
// # Execution modes
//
// RealTimeThread: every cycle is one datagram, sent in order.
//
// IndependentThread (MARTe2's default): the first signal is the scalar uint8
// Trigger, sent as part of the payload. Every cycle whose Trigger is
// non-zero is sent together with the NumberOfPreTriggers cycles before it
// and the NumberOfPostTriggers cycles after it; overlapping windows and
// consecutive triggers send each cycle once, in order, and a trigger in the
// first cycles has only the pre-trigger cycles that exist. The RT side only
// copies; the sender thread reads the Trigger byte and decides, keeping the
// last NumberOfPreTriggers cycles unreleased in the ring so they are there
// when a trigger comes (hence NumberOfPreTriggers < NumberOfBuffers).
//
// # Overflow
//
// When the sender thread falls NumberOfBuffers cycles behind (counting the
// kept pre-trigger cycles) the ring is full, and Synchronise refuses the
// NEWEST cycle: it is not queued, it is counted in overflows_total, and the
// cycles already queued are sent as usual. Refusing the newest keeps the ring
// race-free without a lock (the sender may be reading the oldest slot) and
// keeps every queued cycle intact. In RealTimeThread mode Synchronise then
// returns an error matching datasource.ErrCycleSkipped, failing the cycle
// as MARTe2 does; in
// IndependentThread mode, where MARTe2 fails the cycle with "Buffer
// overrun", it counts and returns nil, and the sender goes on. Pre- and
// post-trigger windows count queued cycles, so a window that spans refused
// cycles reaches further back or forward in time. A warning is logged at
// most every 10 s while overflows or send errors occur.
//
// Send errors are counted and never stop the sender. On Stop the sender
// thread sends what the ring holds, then the socket is closed. Nothing
// allocates in steady state, on either thread.
//
// # Metrics
//
// streamerd_flatudp_*{datasource="name"}: synchronise_total,
// cycles_queued_total, overflows_total (RT thread); triggers_total,
// cycles_sent_total (handed to the socket), cycles_skipped_total (released
// unsent: outside every trigger window), datagrams_sent_total, sent_bytes_total,
// send_errors_total (sender thread); ring_depth (gauge: cycles queued or
// kept).
package flatudp
