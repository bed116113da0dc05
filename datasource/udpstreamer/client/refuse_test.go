package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client/udpstest"
	"github.com/streamerd/streamerd/datasource/udpstreamer/wire"
)

func manySigs(n int) []wire.SignalInfo {
	sigs := make([]wire.SignalInfo, n)
	for i := range sigs {
		sigs[i] = scalar(fmt.Sprintf("S%d", i), datasource.Uint8, "")
	}
	return sigs
}

// TestConfigBeyondMaxConfigSize: a CONFIG with more signals than the client
// accepts ends Connect at its first fragment, with what was wrong, after one
// CONNECT; the same CONFIG mid-session ends Next.
func TestConfigBeyondMaxConfigSize(t *testing.T) {
	srv := udpstest.NewServer(t, manySigs(20), 1400)
	c := dial(t, srv, Options{MaxConfigSize: wire.ConfigSize(10), ResendInterval: 20 * time.Millisecond})
	_, err := c.Connect(context.Background())
	if !errors.Is(err, ErrUnsupportedConfig) {
		t.Fatalf("Connect: %v, want ErrUnsupportedConfig", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "MaxConfigSize is 1364 bytes (10 signals)") ||
		!strings.Contains(msg, "20 signals, 2724 bytes") && !strings.Contains(msg, "in 2 fragments") {
		t.Errorf("error %q does not say what was wrong", msg)
	}
	if n := srv.Connects(); n != 1 {
		t.Errorf("%d CONNECTs, want 1: no asking again after a refusal", n)
	}
	if st := c.Stats(); st.BadConfigs != 1 {
		t.Errorf("BadConfigs %d, want 1", st.BadConfigs)
	}

	srv2 := udpstest.NewServer(t, manySigs(5), 1400)
	c2 := dial(t, srv2, Options{MaxConfigSize: wire.ConfigSize(10)})
	connect(t, c2)
	if err := srv2.SetSignals(manySigs(20)); err != nil {
		t.Fatal(err)
	}
	srv2.SendConfig()
	var u Update
	if err := nextErr(c2, &u); !errors.Is(err, ErrUnsupportedConfig) {
		t.Fatalf("Next after a CONFIG beyond the limit: %v", err)
	}
}
