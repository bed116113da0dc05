package udpstreamer

import (
	"errors"
	"time"

	udpswire "github.com/streamerd/streamerd/datasource/udpstreamer/wire"
	"github.com/streamerd/streamerd/rt/rtsync"
)

// Errors of the tap.
var (
	// ErrTapBusy is returned by OpenTap while another tap is open.
	ErrTapBusy = errors.New("udpstreamer: a tap is already open")
	// ErrTapClosed is returned by Tap.Next after Close.
	ErrTapClosed = errors.New("udpstreamer: tap closed")
)

// Tap is a read-only view of a Streamer's DATA updates for a consumer in
// the same process (the daemon's web scope): every update the network
// thread serialises is offered to it, whether a client is connected or
// not. It is not a network client: it never takes the session, and the
// client, if any, receives exactly what it would without it.
//
// The network thread never waits for the tap: it copies each update's
// payload into the tap's ready buffer only if the consumer is not swapping
// buffers at that instant, and a newer update replaces one the consumer
// has not taken yet (Next reports how many it missed). While a tap is
// open the network thread serialises every cycle, with or without a
// client; the copy costs it about as much as a memcpy of the payload.
// Nothing allocates after OpenTap.
//
// Next and Close may be called from any goroutine, Next from one at a
// time.
type Tap struct {
	s      *Streamer
	config []byte // the CONFIG payload

	lock     rtsync.FastLock // guards ready and readySeq
	sem      rtsync.EventSem
	ready    []byte
	readySeq uint64
	taken    []byte // consumer only
	takenSeq uint64 // consumer only

	offered uint64 // network thread only: updates offered so far
	closed  bool   // guarded by lock
}

// OpenTap opens the tap of s (after AllocateMemory): one at a time.
func (s *Streamer) OpenTap() (*Tap, error) {
	if s.mem == nil {
		return nil, errors.New("udpstreamer: OpenTap before AllocateMemory")
	}
	config, err := udpswire.AppendConfig(nil, s.infos)
	if err != nil {
		return nil, err
	}
	t := &Tap{s: s, config: config, ready: make([]byte, s.dataLayout.Payload), taken: make([]byte, s.dataLayout.Payload)}
	if !s.tap.CompareAndSwap(nil, t) {
		return nil, ErrTapBusy
	}
	return t, nil
}

// ConfigPayload returns the CONFIG message a client would reassemble: the
// signal list every payload of Next follows. The caller must not modify
// it.
func (t *Tap) ConfigPayload() []byte { return t.config }

// Next waits up to timeout for an update newer than the last one it
// returned and returns its DATA payload (the hrtTimestamp, then every
// signal as a client receives it) and how many updates were offered in
// between that it missed. The payload belongs to the tap until the next
// call. It returns rtsync.ErrTimeout when no update came, ErrTapClosed
// after Close.
func (t *Tap) Next(timeout time.Duration) (payload []byte, missed uint64, err error) {
	for {
		t.lock.FastLock(rtsync.Forever, 0)
		closed, fresh := t.closed, t.readySeq != t.takenSeq
		if fresh {
			t.ready, t.taken = t.taken, t.ready
			missed = t.readySeq - t.takenSeq - 1
			t.takenSeq = t.readySeq
		}
		t.lock.FastUnLock()
		switch {
		case closed:
			return nil, 0, ErrTapClosed
		case fresh:
			return t.taken, missed, nil
		}
		if err := t.sem.WaitReset(timeout); err != nil {
			return nil, 0, err
		}
	}
}

// Close detaches the tap: the network thread stops offering updates and
// a Next waiting returns ErrTapClosed. Later calls do nothing.
func (t *Tap) Close() {
	t.s.tap.CompareAndSwap(t, nil)
	t.lock.FastLock(rtsync.Forever, 0)
	t.closed = true
	t.lock.FastUnLock()
	t.sem.Post()
}

// offer hands the serialised update in wire to the tap unless the
// consumer holds the lock this instant; network thread only.
func (t *Tap) offer(wire []byte, l udpswire.Layout) {
	t.offered++
	if !t.lock.TryLock() {
		return
	}
	l.CopyPayload(t.ready, wire)
	t.readySeq = t.offered
	t.lock.FastUnLock()
	t.sem.Post()
}
