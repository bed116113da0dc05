package cli

import (
	"fmt"
	"strings"

	"github.com/streamerd/streamerd/datasource/flatudp/wire"
)

// ParseByteOrder parses the byte order of the receivers' -endian flag:
// "little" or "big" (case ignored); the empty string is little, the
// default.
func ParseByteOrder(s string) (wire.ByteOrder, error) {
	for _, o := range []wire.ByteOrder{wire.Little, wire.Big} {
		if strings.EqualFold(s, o.String()) {
			return o, nil
		}
	}
	if s == "" {
		return wire.Little, nil
	}
	return 0, fmt.Errorf("unknown byte order %q (want little or big)", s)
}
