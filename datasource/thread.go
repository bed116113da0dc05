package datasource

import (
	"time"

	"github.com/streamerd/streamerd/netthread"
	"github.com/streamerd/streamerd/rt/cpu"
)

// NetworkThread places and paces the network thread of a UDPStreamer or
// the sender thread of a FlatUDP sender, and sizes the ring of cycles
// between Synchronise and that thread by time (docs/config.md names each
// field's key). Its fields are promoted into the producer's Config. The
// zero value is an unpinned thread at normal priority, a paced wait, and
// an automatic ring of 500 ms of cycles at 1 ms within 64 MiB.
type NetworkThread struct {
	// CPUMask pins the thread; 0 leaves it unpinned.
	CPUMask cpu.Mask
	// Priority runs the thread under SCHED_FIFO at this priority (1..99;
	// 0 leaves normal scheduling). A late wake-up of the thread is what
	// skips cycles at high rates (BENCHMARKS.md).
	Priority int
	// CyclePeriod is the interval between two Synchronise calls: the
	// period of the RT thread that calls it (streamerd sets it from the
	// thread's Frequency). An automatic ring is sized for it, and the
	// paced wait expects a cycle every CyclePeriod. When 0, the ring is
	// sized for 1 ms and the paced wait parks between cycles as
	// NetworkWait park does.
	CyclePeriod time.Duration
	// NetworkWait is how the thread waits for the next cycle
	// (netthread.WaitMode). WaitPaced, the zero value, sleeps until
	// shortly before the next cycle is due and spins until it comes, so
	// Synchronise's post finds it spinning and makes no system call, for a
	// few percent of a CPU at 1 kHz; it needs CyclePeriod. WaitSpin spins
	// for NetworkSpin after every cycle, then parks. WaitPark parks at
	// once: every Synchronise then wakes it (a FUTEX_WAKE system call). A
	// NetworkSpin above 0 with the zero NetworkWait selects WaitSpin.
	NetworkWait netthread.WaitMode
	// NetworkSpin is how long the spin wait spins, looking for the next
	// cycle, before it parks (0..netthread.MaxSpin). A cycle published
	// during the spin is taken without a wake-up. The spin keeps the
	// thread's CPU busy for up to NetworkSpin after every cycle, so give
	// the thread a CPU of its own (CPUMask).
	NetworkSpin time.Duration
	// HandOffTime is the time of cycles an automatic ring holds (0..1
	// min; 500 ms when 0), and HandOffBytes the memory it may take (0..256
	// MiB; 64 MiB when 0). Both apply only to an automatic ring: a
	// UDPStreamer's HandOffDepth, a FlatUDP sender's NumberOfBuffers, left
	// at 0.
	HandOffTime  time.Duration
	HandOffBytes int
}
