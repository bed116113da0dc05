package frame

import (
	"math"

	"github.com/streamerd/streamerd/datasource/udpstreamer/wire"
)

// The protocol's CONFIG record and bounds, defined in the public wire
// package, under the names this package's code uses.
type SignalInfo = wire.SignalInfo

const (
	HeaderSize        = wire.HeaderSize
	MinMaxPayloadSize = wire.MinMaxPayloadSize
	MaxMaxPayloadSize = wire.MaxMaxPayloadSize
	DataTimestampSize = wire.DataTimestampSize
	MaxCounterJump    = wire.MaxCounterJump
	maxFragments      = wire.MaxFragments
)

// maxUpdateInt is the largest payload one update can carry, kept
// representable as an int on 32-bit platforms.
const maxUpdateInt = min(maxFragments*(MaxMaxPayloadSize-HeaderSize), math.MaxInt)
