// Package udpstreamer is the UDPStreamer output DataSource: a single-client UDP server that streams signal memory, quantised and fragmented, on every Synchronise.
//
// The RT thread's share is Synchronise: take the FastLock, copy signal
// memory into the ready buffer, stamp it with CLOCK_MONOTONIC_RAW, release,
// post the EventSem. The RT thread reads CLOCK_MONOTONIC through the vDSO
// (30 ns); the network thread converts the stamp to CLOCK_MONOTONIC_RAW when
// it takes the cycle, so the RT thread makes no system call for it (a raw
// clock_gettime costs 275 ns). The newest cycle always wins: a cycle the network thread
// had not taken yet is overwritten and counted as skipped.
//
// The network thread (pinned with CPUMask) waits on the EventSem, swaps the
// ready buffer with its own under the FastLock (a swap of two slice headers,
// so the RT thread never waits for a copy), and, if a client is connected,
// quantises and serialises the update into a preallocated payload buffer,
// lays the fragments out back to back with their headers, and hands them to
// the kernel in as few syscalls as it allows (package udpsend). With no
// client it serialises nothing.
//
// A receive goroutine reads CONNECT, DISCONNECT and ACK from the server
// socket and queues session changes for the network thread, so the data path
// never waits for the network. Sessions follow the decisions of the specs'
// README: a CONNECT from any allowed address replaces the session and is
// answered with CONFIG; DISCONNECT counts only from the client's own address
// and port; ACK is counted and ignored; anything else is dropped and counted
// by reason. Send errors are counted and never stop the server.
//
// Nothing allocates in steady state, on either thread.
package udpstreamer
