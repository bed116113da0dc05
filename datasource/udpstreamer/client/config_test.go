package client

import (
	"testing"

	"github.com/streamerd/streamerd/datasource/udpstreamer/wire"
)

// TestDefaultMaxConfigSize: the default CONFIG limit is that of 4096
// signals, as Options documents.
func TestDefaultMaxConfigSize(t *testing.T) {
	if defaultMaxConfigSize != wire.ConfigSize(4096) {
		t.Errorf("defaultMaxConfigSize %d, wire.ConfigSize(4096) %d", defaultMaxConfigSize, wire.ConfigSize(4096))
	}
}
