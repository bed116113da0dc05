package cli

import (
	"testing"

	"github.com/streamerd/streamerd/datasource/flatudp/wire"
)

func TestParseByteOrder(t *testing.T) {
	for s, want := range map[string]wire.ByteOrder{"": wire.Little, "little": wire.Little, "LITTLE": wire.Little, "big": wire.Big, "Big": wire.Big} {
		if got, err := ParseByteOrder(s); err != nil || got != want {
			t.Errorf("ParseByteOrder(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseByteOrder("native"); err == nil {
		t.Error("ParseByteOrder(native) succeeded")
	}
}
