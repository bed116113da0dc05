package client

import (
	"sync/atomic"
	"time"

	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
)

// Stats counts what a Client received since Dial. Counts of datagrams refer to
// datagrams from the server address unless said otherwise.
type Stats struct {
	Datagrams   uint64 // datagrams from the server, whatever their content
	Bytes       uint64 // bytes of those datagrams, headers included
	Updates     uint64 // DATA updates returned by Next
	Lost        uint64 // sum of Update.Lost: updates the counter skipped (never completed or never sent)
	Skipped     uint64 // sum of Update.Skipped: cycles the server skipped, seen from the hrtTimestamp spacing
	Stale       uint64 // complete updates the sequence gate dropped: reordered or duplicated behind a newer one
	Implausible uint64 // complete updates dropped for a counter implausibly far from the sequence (docs/udpstreamer.md, "Sequence counters")
	Resyncs     uint64 // times the counter restarted without a CONFIG and the client followed it (Update.Resync)
	Incomplete  uint64 // updates the reassembler gave up on (a fragment missing when newer ones arrived)
	Configs     uint64 // CONFIG payloads completed, including repeats
	BadConfigs  uint64 // CONFIGs refused: invalid, or beyond the client's limits (4096 signals, Options.MaxDataSize)
	Foreign     uint64 // datagrams from any address but the server's, ignored
	Unexpected  uint64 // well-formed datagrams of a client-to-server type (ACK, CONNECT, DISCONNECT)
	Silences    uint64 // silences Next reported (*SilenceError)
	Reconnects  uint64 // CONNECTs sent while silent (Options.Reconnect)

	Silent     bool          // a silence was reported and no update came since
	LastUpdate time.Time     // arrival of the last update Next returned; zero before the first
	Period     time.Duration // the server's period as learnt from the hrtTimestamps; 0 until known, and while it is learnt again

	BadHeader uint64 // datagrams whose 17-byte header was refused: too short, bad magic, unknown type, fragment index or payload length out of range
	Dropped   uint64 // fragments the DATA and CONFIG reassemblers refused: malformed, inconsistent with their update, too large, duplicated (a duplicated update shows here), stale or of the wrong type

	early uint64 // DATA fragments that arrived during Connect, before the CONFIG, and were ignored

	badHeader [frame.NumHeaderErrors]uint64 // BadHeader by reason
	dropped   [frame.NumDropReasons]uint64  // Dropped by reason
}

// counters are the live Stats. Only the goroutine in Connect or Next writes
// them; atomics let Stats read them from any goroutine.
type counters struct {
	datagrams, bytes, updates, lost, skipped, stale atomic.Uint64
	implausible, resyncs, incomplete                atomic.Uint64
	configs, badConfigs, early, foreign, unexpected atomic.Uint64
	silences, reconnects                            atomic.Uint64
	silent                                          atomic.Bool
	lastUpdate                                      atomic.Int64 // ns since the Client's epoch; 0: none yet
	period                                          atomic.Int64 // ns

	badHeader [frame.NumHeaderErrors]atomic.Uint64
	dropped   [frame.NumDropReasons]atomic.Uint64
}

func (c *counters) snapshot(epoch time.Time) Stats {
	s := Stats{
		Datagrams:   c.datagrams.Load(),
		Bytes:       c.bytes.Load(),
		Updates:     c.updates.Load(),
		Lost:        c.lost.Load(),
		Skipped:     c.skipped.Load(),
		Stale:       c.stale.Load(),
		Implausible: c.implausible.Load(),
		Resyncs:     c.resyncs.Load(),
		Incomplete:  c.incomplete.Load(),
		Configs:     c.configs.Load(),
		BadConfigs:  c.badConfigs.Load(),
		Foreign:     c.foreign.Load(),
		Unexpected:  c.unexpected.Load(),
		Silences:    c.silences.Load(),
		Reconnects:  c.reconnects.Load(),
		Silent:      c.silent.Load(),
		Period:      time.Duration(c.period.Load()),
	}
	s.early = c.early.Load()
	if ns := c.lastUpdate.Load(); ns != 0 {
		s.LastUpdate = epoch.Add(time.Duration(ns))
	}
	for i := range c.badHeader {
		s.badHeader[i] = c.badHeader[i].Load()
		s.BadHeader += s.badHeader[i]
	}
	for i := range c.dropped {
		s.dropped[i] = c.dropped[i].Load()
		s.Dropped += s.dropped[i]
	}
	return s
}

// countDrop counts a fragment a reassembler refused with err.
func (c *counters) countDrop(err error) {
	if d, ok := err.(frame.DropReason); ok && int(d) < len(c.dropped) {
		c.dropped[d].Add(1)
	}
}
