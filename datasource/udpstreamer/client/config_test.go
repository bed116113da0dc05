package client

import (
	"testing"

	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
)

// TestDefaultMaxConfigSize: the default CONFIG limit is that of 4096
// signals, as Options documents.
func TestDefaultMaxConfigSize(t *testing.T) {
	if defaultMaxConfigSize != frame.ConfigSize(4096) {
		t.Errorf("defaultMaxConfigSize %d, frame.ConfigSize(4096) %d", defaultMaxConfigSize, frame.ConfigSize(4096))
	}
}
