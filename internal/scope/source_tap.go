package scope

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/rt/rtsync"
)

// PayloadTap is an in-process feed of a UDPStreamer's payloads, as
// a UDPStreamer's tap gives them (OpenTap): the CONFIG message once, then each update's
// DATA payload and how many updates were missed before it. Next returns
// rtsync.ErrTimeout when no update came within timeout; any other error
// ends the feed.
type PayloadTap interface {
	ConfigPayload() []byte
	Next(timeout time.Duration) (payload []byte, missed uint64, err error)
}

// Tap is an open tap: the feed, and Close to detach it.
type Tap interface {
	PayloadTap
	Close()
}

var errNoTap = errors.New("scope: the datasource has no in-process tap")

// OpenTap opens the in-process tap of a UDPStreamer: one at a time, after
// AllocateMemory or Start; ds is the Streamer (udpstreamer's Internals
// offers the tap).
func OpenTap(ds interface{ Internals() any }) (Tap, error) {
	o, ok := ds.Internals().(interface{ OpenTap() (any, error) })
	if !ok {
		return nil, errNoTap
	}
	t, err := o.OpenTap()
	if err != nil {
		return nil, err
	}
	tap, ok := t.(Tap)
	if !ok {
		t.(interface{ Close() }).Close()
		return nil, errNoTap
	}
	return tap, nil
}

// UDPStreamerTap is a source that reads a UDPStreamer of the same process
// through its tap. It is not a network client: it never takes the session,
// and a client of the datasource keeps it. Updates the scope was too busy
// to take count as lost; cycles the server skipped (its time stamps say
// so) as skipped. No update for max(MinSilence, 5 expected periods) is a
// silence, counted and shown.
type UDPStreamerTap struct {
	Name string // the datasource, for the page
	Tap  PayloadTap

	updates, bytes, lost, skipped, silences atomic.Uint64
}

// Info names the source.
func (u *UDPStreamerTap) Info() Info {
	return Info{Kind: "UDPStreamer", Address: "datasource " + u.Name + " (in-process)"}
}

// Counters returns the feed's counts.
func (u *UDPStreamerTap) Counters() Counters {
	return Counters{Updates: u.updates.Load(), Bytes: u.bytes.Load(), Lost: u.lost.Load(), Skipped: u.skipped.Load(), Silences: u.silences.Load()}
}

// Run reads the tap into h until ctx ends or the tap closes.
func (u *UDPStreamerTap) Run(ctx context.Context, h *Hub) error {
	cfg, err := client.ParseConfig(u.Tap.ConfigPayload())
	if err != nil {
		h.SetStatus(StateError, fmt.Sprintf("UDPStreamer %s: %v", u.Name, err))
		return err
	}
	configureUDPS(h, u.Info(), cfg)
	h.SetStatus(StateWaiting, "waiting for the first cycle of UDPStreamer "+u.Name)
	var upd client.Update
	var clock silenceClock
	var counter uint32
	receiving, quiet, gap := false, false, true
	for ctx.Err() == nil {
		p, missed, err := u.Tap.Next(statusEvery)
		now := time.Now()
		switch {
		case errors.Is(err, rtsync.ErrTimeout):
			if !quiet && !clock.last.IsZero() && now.Sub(clock.last) >= clock.timeout() {
				quiet, receiving, gap = true, false, true
				u.silences.Add(1)
				h.silenced()
				h.SetStatus(StateSilent, fmt.Sprintf("UDPStreamer %s: no cycle for %v (silence)", u.Name, clock.timeout()))
			}
			continue
		case err != nil:
			if ctx.Err() != nil {
				return nil
			}
			h.SetStatus(StateError, fmt.Sprintf("UDPStreamer %s: %v", u.Name, err))
			return err
		}
		counter += uint32(missed) + 1
		if err := upd.Decode(cfg, counter, uint32(missed), p); err != nil {
			h.SetStatus(StateError, fmt.Sprintf("UDPStreamer %s: %v", u.Name, err))
			return err
		}
		u.updates.Add(1)
		u.bytes.Add(uint64(len(p)))
		u.lost.Add(missed)
		u.skipped.Add(uint64(upd.Skipped))
		clock.arrived(now)
		if quiet = false; !receiving {
			receiving = true
			h.SetStatus(StateReceiving, "showing UDPStreamer "+u.Name+" in-process")
		}
		if missed > 0 || upd.Skipped > 0 {
			h.missed(uint32(min(missed, math.MaxUint32)), upd.Skipped)
		}
		h.push(udpsUpdate{&upd}, gap || missed > 0)
		gap = false
	}
	return nil
}
