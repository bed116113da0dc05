package client

import "github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"

// ParseConfig parses a reassembled CONFIG payload into a Config, as
// Connect does: for a program that gets the payloads some other way than
// from a socket (the in-process tap of a UDPStreamer, a recording). It
// allocates.
func ParseConfig(payload []byte) (*Config, error) { return newConfig(payload) }

// Decode fills u from a reassembled DATA payload of cfg's session, as Next
// does: counter is the update's DATA counter and lost the updates missing
// before it. It sets u.Skipped as Next does, from the hrtTimestamps of
// the updates decoded into u since cfg changed: decode a session's updates
// into one Update, in order. It allocates only when cfg differs from the
// previous call's or the payload outgrows u's buffer. cfg must come from
// ParseConfig (or Connect).
func (u *Update) Decode(cfg *Config, counter, lost uint32, payload []byte) error {
	if cfg == nil || cfg.payloadSize < frame.DataTimestampSize {
		return errForeignConfig
	}
	if u.cfg != cfg {
		u.skips.reset()
	}
	if err := u.fill(cfg, counter, lost, payload); err != nil {
		return err
	}
	u.Skipped = u.skips.step(u.HRT, u.Lost)
	return nil
}
