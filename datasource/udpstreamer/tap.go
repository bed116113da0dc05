package udpstreamer

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/internal/lifecycle"
	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
	"github.com/streamerd/streamerd/rt/rtsync"
)

// Errors of the tap.
var (
	// errTapBusy is returned by openTap while another tap is open.
	errTapBusy = errors.New("udpstreamer: a tap is already open")
	// errTapClosed is returned by tap.Next after Close.
	errTapClosed = errors.New("udpstreamer: tap closed")
)

// tap is a read-only view of a Streamer's DATA updates for a consumer in
// the same process (the daemon's web scope): every update the network
// thread serialises is offered to it, whether a client is connected or
// not. It is not a network client: it never takes the session, and the
// client, if any, receives exactly what it would without it.
//
// The hand-off is a triple buffer: the network thread copies each
// update's payload into its own back buffer and exchanges it with the
// middle one in one atomic step; the consumer exchanges its front buffer
// with the middle one when a newer update waits there. Neither side ever
// waits for the other, and the consumer always gets the newest update; a
// newer one replaces one it has not taken yet (Next reports how many it
// missed). While a tap is open the network thread serialises every cycle,
// with or without a client; the copy costs it a memcpy of the payload.
// Nothing allocates after OpenTap.
//
// Next and Close may be called from any goroutine, Next from one at a
// time.
type tap struct {
	s      *Streamer
	config []byte // the CONFIG payload

	bufs [3][]byte
	seqs [3]uint64     // the update each buffer holds, numbered from 1
	mid  atomic.Uint32 // index of the middle buffer, | tapFresh when it is newer than front
	sem  rtsync.EventSem

	back    uint32 // network thread only
	offered uint64 // network thread only: updates offered so far

	front    uint32 // consumer only
	frontSeq uint64 // consumer only

	closed atomic.Bool
}

// tapFresh marks the middle buffer as holding an update the consumer has
// not taken.
const tapFresh = 4

// openTap opens the tap of s (after AllocateMemory or Start): one at a
// time.
func (s *Streamer) openTap() (*tap, error) {
	switch s.life.State() {
	case lifecycle.Configured:
		return nil, fmt.Errorf("datasource %q: OpenTap: %w", s.cfg.Name, datasource.ErrNotAllocated)
	case lifecycle.Closed:
		return nil, fmt.Errorf("datasource %q: OpenTap: %w", s.cfg.Name, datasource.ErrClosed)
	}
	config, err := frame.AppendConfig(nil, s.infos)
	if err != nil {
		return nil, err
	}
	t := &tap{s: s, config: config, back: 0, front: 2}
	t.mid.Store(1)
	for i := range t.bufs {
		t.bufs[i] = make([]byte, s.dataLayout.Payload)
	}
	if !s.tap.CompareAndSwap(nil, t) {
		return nil, errTapBusy
	}
	// A Close that ran since the check above may have looked for a tap
	// before this one was there: then nothing would close it.
	if s.life.State() == lifecycle.Closed {
		t.Close()
		return nil, fmt.Errorf("datasource %q: OpenTap: %w", s.cfg.Name, datasource.ErrClosed)
	}
	return t, nil
}

// ConfigPayload returns the CONFIG message a client would reassemble: the
// signal list every payload of Next follows. The caller must not modify
// it.
func (t *tap) ConfigPayload() []byte { return t.config }

// Next waits up to timeout for an update newer than the last one it
// returned and returns its DATA payload (the hrtTimestamp, then every
// signal as a client receives it) and how many updates were offered in
// between that it missed. The payload belongs to the tap until the next
// call. It returns rtsync.ErrTimeout when no update came, errTapClosed
// after Close (the tap's or the Streamer's). timeout is as
// rtsync.EventSem.WaitReset's: Forever waits without limit, below 0 only
// looks.
func (t *tap) Next(timeout time.Duration) (payload []byte, missed uint64, err error) {
	for {
		if t.closed.Load() {
			return nil, 0, errTapClosed
		}
		if t.mid.Load()&tapFresh != 0 {
			t.front = t.mid.Swap(t.front) &^ tapFresh
			seq := t.seqs[t.front]
			missed, t.frontSeq = seq-t.frontSeq-1, seq
			return t.bufs[t.front], missed, nil
		}
		if err := t.sem.WaitReset(timeout); err != nil {
			return nil, 0, err
		}
	}
}

// Close detaches the tap: the network thread stops offering updates and
// a Next waiting returns errTapClosed. Later calls do nothing.
func (t *tap) Close() {
	t.s.tap.CompareAndSwap(t, nil)
	t.closed.Store(true)
	t.sem.Post()
}

// offer hands the serialised update in wire to the tap; network thread
// only. It never waits.
func (t *tap) offer(wire []byte, l frame.Layout) {
	t.offered++
	l.CopyPayload(t.bufs[t.back], wire)
	t.seqs[t.back] = t.offered
	t.back = t.mid.Swap(t.back|tapFresh) &^ tapFresh
	t.sem.Post()
}
