package mcast

import (
	"runtime"
	"testing"
)

// TestSendControlRefusesTTL: a TTL outside 0..255 is an error, before any
// socket.
func TestSendControlRefusesTTL(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("multicast is implemented on Linux only")
	}
	for _, ttl := range []int{-1, 256} {
		if _, err := SendControl("127.0.0.1", ttl, true); err == nil {
			t.Errorf("TTL %d accepted", ttl)
		}
	}
	if _, err := SendControl("127.0.0.1", 1, true); err != nil {
		t.Error(err)
	}
}
