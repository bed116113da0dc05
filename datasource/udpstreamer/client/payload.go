package client

// ParseConfig parses a reassembled CONFIG payload into a Config, as
// Connect does: for a program that gets the payloads some other way than
// from a socket (the in-process tap of a UDPStreamer, a recording). It
// allocates.
func ParseConfig(payload []byte) (*Config, error) { return newConfig(payload) }

// Decode fills u from a reassembled DATA payload of cfg's session, as Next
// does: counter is the update's DATA counter and lost the updates missing
// before it. It allocates only when cfg differs from the previous call's
// or the payload outgrows u's buffer.
func (u *Update) Decode(cfg *Config, counter, lost uint32, payload []byte) error {
	return u.fill(cfg, counter, lost, payload)
}

// Skips counts the cycles a server skipped before each update decoded
// with Decode, from the hrtTimestamps, as Next does for its own: give it
// the session's updates in order. The zero value is ready; not safe for
// concurrent use.
type Skips struct{ k cycleClock }

// Step sets u.Skipped: the server's cycles missing before u beyond the
// u.Lost updates.
func (s *Skips) Step(u *Update) { u.Skipped = s.k.step(u.HRT, u.Lost) }
