package client

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"time"

	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
)

// Silence detection and reconnection (docs/udpstreamer.md, "The Go client").
const (
	// MinSilence is the shortest pause the default Options.Silence reports.
	minSilence = time.Second
	// SilencePeriods is how many of the server's periods without an update
	// make a silence by default, when that is longer than MinSilence.
	silencePeriods = 5
	// MaxReconnectInterval bounds the back-off between the CONNECTs sent
	// while silent with Options.Reconnect.
	maxReconnectInterval = 30 * time.Second
)

// ErrSilence is matched (errors.Is) by the *SilenceError Next returns.
var ErrSilence = errors.New("udpstreamer/client: no DATA from the server (silence)")

// silenceError is returned by Next, once per silence, when no update came
// for the silence timeout (Options.Silence). The session may resume: a
// later Next returns the next update, marked with Update.Silence. A
// silence is a read timeout the client set itself, so the error matches
// both ErrSilence and os.ErrDeadlineExceeded.
type silenceError struct {
	Server       netip.AddrPort
	After        time.Duration // the pause that made the silence
	Reconnecting bool          // a CONNECT went out, and more follow while silent (Options.Reconnect)
}

func (e *silenceError) Error() string {
	s := fmt.Sprintf("udpstreamer/client: no DATA from %v for %v (silence)", e.Server, e.After)
	if e.Reconnecting {
		s += "; sending CONNECT again"
	}
	return s
}

// Is reports whether target is ErrSilence or os.ErrDeadlineExceeded.
func (e *silenceError) Is(target error) bool {
	return target == ErrSilence || target == os.ErrDeadlineExceeded
}

// Timeout reports true, as a net.Error's would for a read timeout.
func (e *silenceError) Timeout() bool { return true }

// silence is the silence detector's state. Only Next's goroutine (and
// Connect's, the same) uses it, apart from the fields named below.
type silence struct {
	last      time.Time     // the last update's arrival, or the session's start
	since     time.Time     // the later of last and the start of the Next waiting for an update
	silent    bool          // a silence was declared and no update came since
	nextTry   time.Time     // next CONNECT while silent with Reconnect
	backoff   time.Duration // interval after nextTry
	lastTry   time.Time     // last CONNECT sent while silent
	fired     bool          // the internal deadline passed: the socket's deadline must be set again
	armedWant time.Time     // the internal deadline last set (zero: none); written under dmu
}

// silenceTimeout is the pause after which no update is a silence; 0 when
// detection is off.
func (c *Client) silenceTimeout() time.Duration {
	switch {
	case c.opts.Silence > 0:
		return c.opts.Silence
	case c.opts.Silence < 0:
		return 0
	}
	return silenceRule(time.Duration(c.cycles.known()))
}

// silenceRule is the client-side silence rule, for a stream whose
// updates come every period: no update for silencePeriods periods, and at
// least minSilence, is a silence (docs/udpstreamer.md, "The Go client").
func silenceRule(period time.Duration) time.Duration {
	return max(minSilence, silencePeriods*period)
}

// want is the internal deadline: the silence deadline, or the next CONNECT
// while silent with Reconnect; zero when there is none.
func (c *Client) want() time.Time {
	to := c.silenceTimeout()
	switch {
	case to == 0:
		return time.Time{}
	case !c.sil.silent:
		return c.sil.since.Add(to)
	case c.opts.Reconnect:
		return c.sil.nextTry
	}
	return time.Time{}
}

// arm sets the socket's deadline to the earlier of the caller's and the
// internal one, unless the deadline in place is already no later than the
// internal one (extend moves it on while updates come; else it fires early
// and arm sets it again): so a stream of updates costs about two deadline
// changes per silence timeout, not one per update.
func (c *Client) arm() {
	w := c.want()
	a := c.sil.armedWant
	if !c.sil.fired && (w.IsZero() || !a.IsZero() && !w.Before(a)) {
		return
	}
	c.dmu.Lock()
	c.sil.armedWant, c.sil.fired = w, false
	c.conn.SetReadDeadline(earliest(c.userDeadline, w))
	c.dmu.Unlock()
}

// extend moves the silence deadline to now + the timeout once half of it
// has passed, at an update's arrival: while updates come the deadline never
// fires, and a read that ends on a deadline costs the net package an
// error value, an allocation.
func (c *Client) extend(now time.Time) {
	a := c.sil.armedWant
	to := c.silenceTimeout()
	if c.sil.fired || a.IsZero() || to == 0 || a.Sub(now) > to/2 {
		return
	}
	c.dmu.Lock()
	c.sil.armedWant = now.Add(to)
	c.conn.SetReadDeadline(earliest(c.userDeadline, c.sil.armedWant))
	c.dmu.Unlock()
}

// earliest returns the earlier of two deadlines, zero meaning none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

// deadline handles a read that ended on a deadline (err). It returns a
// *SilenceError when a silence starts, err when the caller's deadline
// passed, and nil when Next should go on waiting.
func (c *Client) deadline(err error) error {
	now := time.Now()
	c.sil.fired = true
	if w := c.want(); !w.IsZero() && !now.Before(w) {
		if !c.sil.silent {
			c.sil.silent = true
			c.st.silences.Add(1)
			c.st.silent.Store(true)
			serr := &silenceError{Server: c.server, After: c.silenceTimeout(), Reconnecting: c.opts.Reconnect}
			if c.opts.Reconnect {
				c.startReconnecting(now)
			}
			return serr
		}
		c.reconnect(now)
	}
	c.dmu.Lock()
	user := c.userDeadline
	c.dmu.Unlock()
	if !user.IsZero() && !now.Before(user) {
		return err
	}
	return nil
}

// startReconnecting sends the first CONNECT of a silence. The back-off
// starts again from the silence timeout unless the previous silence's
// CONNECTs were recent (two clients taking the session from each other
// then back off together).
func (c *Client) startReconnecting(now time.Time) {
	if c.sil.lastTry.IsZero() || now.Sub(c.sil.lastTry) > 2*maxReconnectInterval {
		c.sil.backoff = c.silenceTimeout()
	}
	c.reconnect(now)
}

// reconnect sends CONNECT and schedules the next one. The CONFIG that
// answers it may come from a server that restarted, whose counters began
// again at 0: the CONFIGs completed before are forgotten, as Connect
// forgets them, so that it is not taken for one of theirs and dropped.
func (c *Client) reconnect(now time.Time) {
	c.cfgR.Reset()
	c.send(frame.Connect)
	c.st.reconnects.Add(1)
	c.sil.lastTry = now
	c.sil.nextTry = now.Add(c.sil.backoff)
	c.sil.backoff = min(2*c.sil.backoff, maxReconnectInterval)
}

// waiting records that Next starts waiting at now: a caller that comes
// back late for the next update is not silence.
func (c *Client) waiting(now time.Time) {
	if now.After(c.sil.since) {
		c.sil.since = now
	}
}

// arrived records an accepted update at now and returns the silence it
// ends (0 if none): the time since the previous update.
func (c *Client) arrived(now time.Time) time.Duration {
	var ended time.Duration
	if c.sil.silent {
		ended = now.Sub(c.sil.last)
		c.sil.silent = false
		c.st.silent.Store(false)
	}
	c.sil.last, c.sil.since = now, now
	c.st.lastUpdate.Store(max(int64(now.Sub(c.epoch)), 1))
	c.extend(now)
	return ended
}

// restartSilence starts the silence clock at now for a new session and
// clears every read deadline.
func (c *Client) restartSilence(now time.Time) {
	c.sil.silent, c.sil.last, c.sil.since = false, now, now
	c.st.silent.Store(false)
	c.dmu.Lock()
	c.userDeadline, c.sil.armedWant, c.sil.fired = time.Time{}, time.Time{}, false
	c.conn.SetReadDeadline(time.Time{})
	c.dmu.Unlock()
}
