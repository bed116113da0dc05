// Package udpstreamer is the UDPStreamer output DataSource: a single-client UDP server that streams signal memory, quantised and fragmented, on every Synchronise.
//
// A Go program embedding it starts with docs/embedding.md: New, Start,
// a broker binding the program's slices by name, Execute once per cycle,
// Close; which call runs on which goroutine; the errors; what it costs.
//
// The RT thread's share is Synchronise: take the FastLock, copy signal
// memory into the ready buffer, stamp it with CLOCK_MONOTONIC read through
// the vDSO (30 ns), release, post the EventSem. The hrtTimestamp on the wire
// is CLOCK_MONOTONIC_RAW: the network thread converts the stamp when it
// takes the cycle, so the RT thread makes no system call for it (a raw
// clock_gettime costs 275 ns). The ready buffers form a ring of cycles,
// sent oldest first, each its own update; the oldest is overwritten (and
// counted as skipped) only when every slot waits. By default the ring
// holds HandOffTime (500 ms) of cycles at the CyclePeriod, within
// HandOffBytes (64 MiB); HandOffDepth N sets N, and 1 is the protocol's
// latest value wins: a cycle the network thread had not taken yet is
// overwritten.
//
// The network thread (pinned with CPUMask, SCHED_FIFO with Priority)
// waits on the EventSem as NetworkWait says: by default it sleeps until
// shortly before the next cycle is due and spins until it comes, so the
// post finds it spinning and costs the RT thread no system call
// (netthread.WaitPaced); a post that finds it asleep wakes it and is
// counted (network_wakeups_total). It then swaps the
// oldest ready buffer with its own under the FastLock (a swap of two slice
// headers, so the RT thread never waits for a copy), and, if a client is
// connected, quantises and serialises the update straight into a
// preallocated wire buffer, where the datagrams lie back to back, around
// the gaps their headers fill next, and hands them to the kernel in as few
// syscalls as it allows (Config.SendMethod). With no client (and no tap) it
// serialises nothing.
//
// A receive goroutine reads CONNECT, DISCONNECT and ACK from the server
// socket, and the ICMP errors the kernel queues on it (IP_RECVERR), and
// queues session changes for the network thread, so the data path never
// waits for the network. Sessions follow docs/udpstreamer.md: a CONNECT
// from any allowed address replaces the session (unless SessionPolicy is
// "first" and a live client holds it) and is answered with CONFIG;
// DISCONNECT counts only from the client's own address and port; an ICMP
// port unreachable from the client ends the session; ACK is counted and
// ignored; anything else is dropped and counted by reason. Send errors are
// counted and never stop the server; session log lines are rate-limited.
//
// A Tap (OpenTap) gives a reader in the same process every update the
// network thread serialises, client or not, without taking the session:
// the daemon's web scope reads its datasources this way.
//
// Nothing allocates in steady state, on either thread.
//
// # Measurements
//
// On the 2-vCPU VM of bench/results.md (make bench, 1 December 2026), p50
// of Synchronise beside a bare copy of the same size, in the same run
// (BenchmarkSynchronise):
//
//	size     no waiter   HandOffDepth 32   parked network thread   bare copy
//	64 B      138 ns         102 ns               953 ns               44 ns
//	4 KiB     158 ns         143 ns               891 ns              101 ns
//	64 KiB   1915 ns        1993 ns              3839 ns             1775 ns
//
// Waking a parked network thread is one futex wake, and costs more when
// the other vCPU has halted: pin the network thread apart, and see
// BENCHMARKS.md on App.CPUWakeLatency. Serialise, lay out and send the
// datasource doc's 1000-sample burst (3 datagrams): 4.5 µs with GSO, 9.1
// µs with a sendto loop. Synchronise to the last fragment at a client on
// loopback: p50 24.8 µs with the default network thread, 15.2 µs with
// NetworkSpin on a pinned one, beside 10.1 µs for the same 3 datagrams
// sent and received bare (BenchmarkEndToEnd).
package udpstreamer
