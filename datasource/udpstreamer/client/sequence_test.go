package client

import (
	"testing"

	"github.com/streamerd/streamerd/datasource"
)

// TestStrayCounterDoesNotBlockTheStream: one DATA update with counter
// 0x7FFFFFF0 in the middle of a session is dropped and counted; the 200
// genuine updates after it all arrive, with nothing reported lost.
func TestStrayCounterDoesNotBlockTheStream(t *testing.T) {
	for _, sigs := range [][]datasource.Signal{scalarA(), burstSigs()} {
		srv, c := session(t, sigs, 1400)
		p := payload(t, sigs, 1, nil)
		var u Update
		for i := range uint32(10) {
			send(t, srv, i, p)
			expect(t, c, &u, i, 0)
		}
		send(t, srv, 0x7FFFFFF0, p)
		for i := uint32(10); i < 210; i++ {
			send(t, srv, i, p)
			expect(t, c, &u, i, 0)
			if u.Resync {
				t.Fatalf("update %d: Resync", i)
			}
		}
		st := c.Stats()
		if st.Updates != 210 || st.Lost != 0 || st.Implausible != 1 || st.Resyncs != 0 {
			t.Errorf("%d signals: updates %d lost %d implausible %d resyncs %d", len(sigs), st.Updates, st.Lost, st.Implausible, st.Resyncs)
		}
	}
}

// TestCounterRestartWithoutConfig: the server's counter starts again at 0
// without a CONFIG (it restarted, or someone's CONNECT restarted it): the
// client follows the new sequence after one update, and says so once.
func TestCounterRestartWithoutConfig(t *testing.T) {
	sigs := scalarA()
	srv, c := session(t, sigs, 1400)
	p := payload(t, sigs, 1, nil)
	var u Update
	for i := uint32(4000); i < 5000; i++ {
		send(t, srv, i, p)
		expect(t, c, &u, i, 0)
	}
	for i := range uint32(100) {
		send(t, srv, i, p)
	}
	expect(t, c, &u, 1, 1) // 0 was held until 1 confirmed the new sequence
	if !u.Resync {
		t.Error("first update of the new sequence: Resync false")
	}
	for i := uint32(2); i < 100; i++ {
		expect(t, c, &u, i, 0)
		if u.Resync {
			t.Fatalf("update %d: Resync again", i)
		}
	}
	if st := c.Stats(); st.Resyncs != 1 || st.Implausible != 1 || st.Lost != 1 {
		t.Errorf("resyncs %d implausible %d lost %d", st.Resyncs, st.Implausible, st.Lost)
	}
}
