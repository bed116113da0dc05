package scope

import (
	"context"
	"time"
)

// Source receives one stream and feeds a Hub: it configures the hub with
// its signal list, pushes every update, and keeps the hub's status.
type Source interface {
	// Info names the source.
	Info() Info
	// Run receives until ctx ends (it then returns nil) or the source
	// cannot go on (it returns why, after setting the hub's status).
	Run(ctx context.Context, h *Hub) error
	// Counters returns the cumulative counts; safe from any goroutine.
	Counters() Counters
}

// Counters are a source's cumulative counts, as the page shows them.
type Counters struct {
	Updates    uint64 `json:"updates"`    // updates decoded: UDPStreamer updates, flatudp datagrams, RD100S packets
	Bytes      uint64 `json:"bytes"`      // bytes of the datagrams received, headers included
	Lost       uint64 `json:"lost"`       // updates the sequence numbers say never arrived
	Stale      uint64 `json:"stale"`      // updates dropped for arriving late or twice
	Incomplete uint64 `json:"incomplete"` // updates missing a fragment
	Bad        uint64 `json:"bad"`        // datagrams refused: malformed, of a wrong size, or from another sender
	Skipped    uint64 `json:"skipped"`    // cycles the server skipped, seen from its time stamps (UDPStreamer)
	Silences   uint64 `json:"silences"`   // times the stream stopped for longer than its silence timeout
	// Link is the RD100S link state of the receiver rules: "ok",
	// "timed out" or "frozen"; empty for other sources.
	Link  string  `json:"link,omitempty"`
	Extra []Count `json:"extra,omitempty"` // counts of one kind of source
}

// Count is a named count.
type Count struct {
	Name  string `json:"name"`
	Value uint64 `json:"value"`
}

// silenceClock tells how long a pause makes a silence, by the rule of the
// Go client (docs/udpstreamer.md, "The Go client": 5 periods, at least
// 1 s), the period learnt from the arrivals. A source asks it for a read
// deadline.
type silenceClock struct {
	last   time.Time
	period float64 // seconds, a moving average of arrival intervals
}

// arrived records an update's arrival.
func (c *silenceClock) arrived(now time.Time) {
	if !c.last.IsZero() {
		d := now.Sub(c.last).Seconds()
		switch {
		case c.period == 0:
			c.period = d
		case d < 10*c.period:
			c.period += (d - c.period) / 64
		}
	}
	c.last = now
}

// timeout is the pause after which the stream is silent.
func (c *silenceClock) timeout() time.Duration {
	return max(time.Second, time.Duration(5*c.period*float64(time.Second)))
}

// restart forgets the arrivals (a new session).
func (c *silenceClock) restart() { *c = silenceClock{} }
