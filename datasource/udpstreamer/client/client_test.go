package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
	"github.com/streamerd/streamerd/internal/testenv"
	"github.com/streamerd/streamerd/internal/udpstest"
)

func TestConnectResendsWhenConnectLost(t *testing.T) {
	sigs := burstSigs()
	srv := udpstest.NewServer(t, sigs, 1400)
	srv.IgnoreConnects(1)
	c := dial(t, srv, Options{resendInterval: 50 * time.Millisecond})
	cfg := connect(t, c)
	if n := srv.Connects(); n < 2 {
		t.Errorf("server saw %d CONNECTs, want at least 2 (the first is ignored)", n)
	}
	if !reflect.DeepEqual(cfg.Signals, sigs) {
		t.Errorf("signals\n%+v\nwant\n%+v", cfg.Signals, sigs)
	}
	if cfg.payloadSize != 4012 || c.Config() != cfg {
		t.Errorf("payloadSize %d, want 4012; Config() %p, want %p", cfg.payloadSize, c.Config(), cfg)
	}
	if i := cfg.indexOf("Ch1"); i != 1 || cfg.indexOf("nope") != -1 {
		t.Errorf("Index(Ch1) = %d", i)
	}
}

func TestConnectTimeoutAndCancel(t *testing.T) {
	srv := udpstest.NewServer(t, burstSigs(), 1400)
	srv.IgnoreConnects(1 << 30)
	c := dial(t, srv, Options{ConnectTimeout: 300 * time.Millisecond, resendInterval: 50 * time.Millisecond})
	_, err := c.Connect(context.Background())
	if !errors.Is(err, ErrConnectTimeout) {
		t.Fatalf("Connect: %v, want ErrConnectTimeout", err)
	}
	if n := srv.Connects(); n < 2 {
		t.Errorf("server saw %d CONNECTs, want resends", n)
	}
	var u Update
	if err := c.Next(&u); !errors.Is(err, errNotConnected) {
		t.Errorf("Next before a session: %v", err)
	}

	c2 := dial(t, srv, Options{ConnectTimeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := c2.Connect(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Connect with cancelled ctx: %v", err)
	}
}

func TestBurstShuffledFragments(t *testing.T) {
	sigs := burstSigs()
	srv, c := session(t, sigs, 1400)
	r := rand.New(rand.NewPCG(1, 2))
	var u Update
	for i := range uint32(5) {
		p := payload(t, sigs, 1000+uint64(i), burstValues(100*i, 1000))
		d := datagrams(t, srv, i, p)
		if len(d) != 3 {
			t.Fatalf("%d fragments, want 3", len(d))
		}
		sendDatagrams(t, srv, shuffled(r, d))
		expect(t, c, &u, i, 0)
		if u.HRT != 1000+uint64(i) || string(u.payloadBytes) != string(p) {
			t.Fatalf("update %d: HRT %d or payload differs", i, u.HRT)
		}
		ch := u.Float64s(1)
		if len(ch) != 1000 || ch[999] != 999*0.25 || u.Float64s(0)[0] != float64(100*i) {
			t.Fatalf("update %d: Ch1 %d values, last %v", i, len(ch), ch[999])
		}
		if i == 0 && !u.SessionStart || i > 0 && u.SessionStart {
			t.Errorf("update %d: SessionStart %v", i, u.SessionStart)
		}
	}
}

// TestManyTinyFragments uses the smallest datagram: one payload byte each, so
// the CONFIG is 276 fragments and every update 132, shuffled and interleaved.
func TestManyTinyFragments(t *testing.T) {
	sigs := []datasource.Signal{scalar("A", datasource.Uint32, ""), vector("B", datasource.Int32, 30)}
	srv, c := session(t, sigs, frame.MinMaxPayloadSize)
	r := rand.New(rand.NewPCG(3, 4))
	vals := func(i int) [][]float64 {
		b := make([]float64, 30)
		for k := range b {
			b[k] = float64(-k * i)
		}
		return [][]float64{{float64(i)}, b}
	}
	var all [][]byte
	for i := range 2 {
		d := datagrams(t, srv, uint32(i), payload(t, sigs, uint64(i), vals(i)))
		if len(d) != 132 {
			t.Fatalf("%d fragments, want 132", len(d))
		}
		all = append(all, d...)
	}
	// Fragments of updates 0 and 1 mixed: which completes first is up to the
	// shuffle; if 1 does, 0 is stale.
	sendDatagrams(t, srv, shuffled(r, all))
	send(t, srv, 2, payload(t, sigs, 2, vals(2)))
	var u Update
	var got []uint32
	for {
		next(t, c, &u)
		got = append(got, u.Counter)
		if u.Float64s(0)[0] != float64(u.Counter) || u.Float64s(1)[29] != -29*float64(u.Counter) {
			t.Fatalf("update %d decoded wrong: %v %v", u.Counter, u.Float64s(0), u.Float64s(1))
		}
		if u.Counter == 2 {
			break
		}
	}
	st := c.Stats()
	if uint64(len(got))+st.Stale != 3 {
		t.Errorf("got updates %v and %d stale, want 3 in all", got, st.Stale)
	}
}

func TestOrderingLossDuplicatesAndWrap(t *testing.T) {
	sigs := scalarA()
	srv, c := session(t, sigs, 1400)
	p := func(v uint32) []byte { return payload(t, sigs, uint64(v), [][]float64{{float64(v)}}) }
	for _, n := range []uint32{0, 1, 1, 3, 2, 4, 9, 0} {
		send(t, srv, n, p(n))
	}
	var u Update
	expect(t, c, &u, 0, 0)
	expect(t, c, &u, 1, 0) // the repeated 1 is a duplicate
	expect(t, c, &u, 3, 1) // 2 missing so far
	expect(t, c, &u, 4, 0) // the late 2 is stale
	expect(t, c, &u, 9, 4) // 5..8 lost
	if v := u.Float64s(0)[0]; v != 9 {
		t.Errorf("value %v, want 9", v)
	}
	// Counter wrap, in a new session (the counter restarts there, so a jump
	// back is accepted): the signed difference carries the gate across 2^32.
	connect(t, c)
	for _, n := range []uint32{0xFFFFFFFE, 0xFFFFFFFF, 0, 2} {
		send(t, srv, n, p(n))
	}
	expect(t, c, &u, 0xFFFFFFFE, 0)
	expect(t, c, &u, 0xFFFFFFFF, 0)
	expect(t, c, &u, 0, 0)
	expect(t, c, &u, 2, 1)

	st := c.Stats()
	if st.Updates != 9 || st.Lost != 1+4+1 {
		t.Errorf("Updates %d Lost %d", st.Updates, st.Lost)
	}
	// The late 2 reached the gate; the final 0 of the first batch was still
	// queued at the reconnect, which ignores DATA before the CONFIG.
	if st.Stale != 1 || st.early != 1 {
		t.Errorf("Stale %d Early %d, want 1 and 1", st.Stale, st.early)
	}
	if st.dropped[frame.DropDuplicate] != 1 {
		t.Errorf("DropDuplicate %d, want 1", st.dropped[frame.DropDuplicate])
	}
}

func TestDuplicatedAndReorderedFragmentedUpdates(t *testing.T) {
	sigs := burstSigs()
	srv, c := session(t, sigs, 1400)
	d := make([][][]byte, 4)
	for i := range d {
		d[i] = datagrams(t, srv, uint32(i), payload(t, sigs, uint64(i), burstValues(uint32(i), 1000)))
	}
	sendDatagrams(t, srv, d[0])
	sendDatagrams(t, srv, d[0]) // whole update duplicated
	sendDatagrams(t, srv, d[2])
	sendDatagrams(t, srv, d[1]) // reordered behind 2: stale
	sendDatagrams(t, srv, d[3])
	var u Update
	expect(t, c, &u, 0, 0)
	expect(t, c, &u, 2, 1)
	expect(t, c, &u, 3, 0)
	st := c.Stats()
	if st.Stale != 1 || st.dropped[frame.DropDuplicate] != 3 || st.Updates != 3 || st.Lost != 1 {
		t.Errorf("Stale %d (want 1), DropDuplicate %d (want 3), Updates %d, Lost %d", st.Stale, st.dropped[frame.DropDuplicate], st.Updates, st.Lost)
	}
}

func TestIncompleteUpdateCounted(t *testing.T) {
	sigs := burstSigs()
	srv, c := session(t, sigs, 1400)
	p := payload(t, sigs, 0, burstValues(0, 1000))
	d := datagrams(t, srv, 0, p)
	sendDatagrams(t, srv, d[:2]) // fragment 2 of update 0 lost
	for i := uint32(1); i <= 6; i++ {
		send(t, srv, i, p)
	}
	var u Update
	expect(t, c, &u, 1, 0) // the gate starts at the first complete update
	for i := uint32(2); i <= 6; i++ {
		expect(t, c, &u, i, 0)
	}
	if st := c.Stats(); st.Incomplete != 1 {
		t.Errorf("Incomplete %d, want 1", st.Incomplete)
	}
}

func TestReconnectResetsGate(t *testing.T) {
	sigs := scalarA()
	srv, c := session(t, sigs, 1400)
	p := payload(t, sigs, 7, [][]float64{{7}})
	var u Update
	for _, n := range []uint32{100, 101} {
		send(t, srv, n, p)
		expect(t, c, &u, n, 0)
	}
	connect(t, c)
	send(t, srv, 0, p) // the server restarts its counter at every CONNECT
	expect(t, c, &u, 0, 0)
	if !u.SessionStart {
		t.Error("first update after reconnect: SessionStart false")
	}
	send(t, srv, 1, p)
	expect(t, c, &u, 1, 0)
	if u.SessionStart {
		t.Error("second update: SessionStart true")
	}
}

func TestStrangersAndBadDatagramsIgnored(t *testing.T) {
	sigs := scalarA()
	srv, c := session(t, sigs, 1400)
	p := payload(t, sigs, 1, [][]float64{{1}})

	stranger := testenv.Loopback(t)
	d := datagrams(t, srv, 50, payload(t, sigs, 50, [][]float64{{50}}))
	if _, err := stranger.WriteToUDPAddrPort(d[0], c.localAddr()); err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), d[0]...)
	bad[0] ^= 0xFF
	sendDatagrams(t, srv, [][]byte{
		bad,       // wrong magic
		d[0][:10], // short
		frame.AppendHeader(nil, frame.Header{Type: frame.Ack, TotalFragments: 1}),
	})
	send(t, srv, 0, p)
	var u Update
	expect(t, c, &u, 0, 0)
	if v := u.Float64s(0)[0]; v != 1 {
		t.Errorf("value %v, want 1 (the stranger's 50 must be ignored)", v)
	}
	st := c.Stats()
	if st.Foreign != 1 || st.badHeader[frame.ErrMagic] != 1 || st.badHeader[frame.ErrShort] != 1 || st.Unexpected != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestMidStreamConfig(t *testing.T) {
	sigs := scalarA()
	srv, c := session(t, sigs, 1400)
	var u Update
	send(t, srv, 40, payload(t, sigs, 0, [][]float64{{40}}))
	expect(t, c, &u, 40, 0)

	// The same CONFIG again (a late answer to a resent CONNECT): the server
	// restarted its counter, so must the gate.
	if err := srv.SendConfig(); err != nil {
		t.Fatal(err)
	}
	send(t, srv, 0, payload(t, sigs, 0, [][]float64{{0}}))
	expect(t, c, &u, 0, 0)
	if !u.SessionStart {
		t.Error("SessionStart false after a repeated CONFIG")
	}
	old := u.Config()

	// A different CONFIG: reported once, then decoded with the new plan.
	sigs2 := []datasource.Signal{scalar("A", datasource.Uint32, ""), vector("W", datasource.Int16, 3)}
	if err := srv.SetSignals(sigs2); err != nil {
		t.Fatal(err)
	}
	if err := srv.SendConfig(); err != nil {
		t.Fatal(err)
	}
	send(t, srv, 0, payload(t, sigs2, 0, [][]float64{{5}, {-1, 0, 1}}))
	c.SetReadDeadline(time.Now().Add(waitLong))
	if err := c.Next(&u); !errors.Is(err, ErrConfigChanged) {
		t.Fatalf("Next: %v, want ErrConfigChanged", err)
	}
	if cfg := c.Config(); cfg == old || !reflect.DeepEqual(cfg.Signals, sigs2) {
		t.Fatalf("Config after change: %+v", cfg.Signals)
	}
	expect(t, c, &u, 0, 0)
	if u.Config() != c.Config() || !reflect.DeepEqual(u.Float64s(1), []float64{-1, 0, 1}) || !u.SessionStart {
		t.Errorf("after change: W = %v, SessionStart %v", u.Float64s(1), u.SessionStart)
	}
	if st := c.Stats(); st.Configs != 3 {
		t.Errorf("Configs %d, want 3", st.Configs)
	}
}

// TestConfigBeyondMaxConfigSize: a CONFIG with more signals than the client
// accepts ends Connect at its first fragment, with what was wrong, after one
// CONNECT. In a session whose updates flow the same CONFIG, not asked for,
// is counted and dropped (a forged datagram ended record); as the answer to
// the CONNECT of a silent Next it ends Next.
func TestConfigBeyondMaxConfigSize(t *testing.T) {
	srv := udpstest.NewServer(t, manySigs(20), 1400)
	c := dial(t, srv, Options{maxConfigSize: frame.ConfigSize(10), resendInterval: 20 * time.Millisecond})
	_, err := c.Connect(context.Background())
	if !errors.Is(err, ErrUnsupportedConfig) {
		t.Fatalf("Connect: %v, want ErrUnsupportedConfig", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "the client takes at most 1364 bytes (10 signals)") ||
		!strings.Contains(msg, "20 signals, 2724 bytes") && !strings.Contains(msg, "in 2 fragments") {
		t.Errorf("error %q does not say what was wrong", msg)
	}
	if n := srv.Connects(); n != 1 {
		t.Errorf("%d CONNECTs, want 1: no asking again after a refusal", n)
	}
	if st := c.Stats(); st.BadConfigs != 1 {
		t.Errorf("BadConfigs %d, want 1", st.BadConfigs)
	}

	sigs := manySigs(5)
	srv2 := udpstest.NewServer(t, sigs, 1400)
	c2 := dial(t, srv2, Options{maxConfigSize: frame.ConfigSize(10), Silence: 100 * time.Millisecond, Reconnect: true})
	connect(t, c2)
	p := payload(t, sigs, 1, nil)
	var u Update
	send(t, srv2, 0, p)
	expect(t, c2, &u, 0, 0)
	if err := srv2.SetSignals(manySigs(20)); err != nil {
		t.Fatal(err)
	}
	srv2.SendConfig()
	send(t, srv2, 1, p)
	if err := nextErr(c2, &u); err != nil || u.Counter != 1 {
		t.Fatalf("Next after a CONFIG beyond the limit, not asked for: %v (counter %d), want the next update", err, u.Counter)
	}
	if st := c2.Stats(); st.BadConfigs != 1 {
		t.Errorf("BadConfigs %d, want 1", st.BadConfigs)
	}
	// Silent: the CONFIG that answers its CONNECT ends Next.
	if err := nextErr(c2, &u); !errors.Is(err, ErrSilence) {
		t.Fatalf("Next: %v, want a silence", err)
	}
	if err := nextErr(c2, &u); !errors.Is(err, ErrUnsupportedConfig) {
		t.Fatalf("Next after the CONNECT of a silence: %v, want ErrUnsupportedConfig", err)
	}
}

func TestDisconnectAndClose(t *testing.T) {
	srv, c := session(t, burstSigs(), 1400)
	if err := c.Disconnect(); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the server to see DISCONNECT", waitLong, func() bool { return srv.Disconnects() > 0 })
	var u Update
	c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	if err := c.Next(&u); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("Next past deadline: %v", err)
	}
	c.SetReadDeadline(time.Time{})
	done := make(chan error, 1)
	go func() { done <- c.Next(&u) }()
	time.Sleep(20 * time.Millisecond)
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := testenv.Receive(t, done, waitLong, "Close to unblock Next"); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Next after Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

func TestDialErrors(t *testing.T) {
	for _, s := range []string{"", "127.0.0.1", "nohost.invalid:1:2", "127.0.0.1:0"} {
		if c, err := Dial(s, Options{}); err == nil {
			c.Close()
			t.Errorf("Dial(%q) succeeded", s)
		}
	}
	if _, err := Dial("127.0.0.1:1", Options{LocalAddr: "x:y"}); err == nil {
		t.Error("bad LocalAddr accepted")
	}
	c, err := Dial("127.0.0.1:1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.localAddr().Addr().Is4() || c.server.String() != "127.0.0.1:1" {
		t.Errorf("LocalAddr %v server %v", c.localAddr(), c.server)
	}
}

func TestStaleBeyondReassemblerWindow(t *testing.T) {
	sigs := scalarA()
	srv, c := session(t, sigs, 1400)
	p := payload(t, sigs, 0, [][]float64{{0}})
	for _, n := range []uint32{10, 0, 11} {
		send(t, srv, n, p)
	}
	var u Update
	expect(t, c, &u, 10, 0)
	expect(t, c, &u, 11, 0)
	// 0 was more than MaxInFlight behind: the reassembler refuses it before
	// the gate would.
	if st := c.Stats(); st.dropped[frame.DropStale] != 1 || st.Stale != 0 {
		t.Errorf("DropStale %d Stale %d", st.dropped[frame.DropStale], st.Stale)
	}
}

// TestMisuseClient: every call out of order, after Close or with a bad
// argument returns an error; nothing panics.
func TestMisuseClient(t *testing.T) {
	srv := udpstest.NewServer(t, burstSigs(), 1400)
	dial := func(t *testing.T) *Client {
		c, err := Dial(srv.Addr().String(), Options{LocalAddr: "127.0.0.1:0", ConnectTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	cases := []struct {
		name string
		run  func(t *testing.T) error
		want error // errors.Is; testenv.ErrAny for any error
	}{
		{"Dial of no address", func(*testing.T) error { _, err := Dial("no address", Options{}); return err }, testenv.ErrAny},
		{"Dial with a bad local address", func(*testing.T) error {
			_, err := Dial(srv.Addr().String(), Options{LocalAddr: "127.0.0.1:99999"})
			return err
		}, testenv.ErrAny},
		{"Next before Connect", func(t *testing.T) error { var u Update; return dial(t).Next(&u) }, errNotConnected},
		{"Next into a nil Update", func(t *testing.T) error {
			c := dial(t)
			if _, err := c.Connect(context.Background()); err != nil {
				t.Fatal(err)
			}
			return c.Next(nil)
		}, testenv.ErrAny},
		{"Connect with a nil context", func(t *testing.T) error {
			var ctx context.Context
			_, err := dial(t).Connect(ctx)
			return err
		}, testenv.ErrAny},
		{"Connect with a context already cancelled", func(t *testing.T) error {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := dial(t).Connect(ctx)
			return err
		}, context.Canceled},
		{"Connect after Close", func(t *testing.T) error {
			c := dial(t)
			c.Close()
			_, err := c.Connect(context.Background())
			return err
		}, net.ErrClosed},
		{"Next after Close", func(t *testing.T) error {
			c := dial(t)
			if _, err := c.Connect(context.Background()); err != nil {
				t.Fatal(err)
			}
			c.Close()
			var u Update
			return c.Next(&u)
		}, net.ErrClosed},
	}
	for _, c := range cases {
		testenv.CheckMisuse(t, c.name, c.want, c.run)
	}
}

// TestNotDialed: a nil Client (a failed Dial, its error ignored) and a zero
// one return an error from every call that can, and zero values from the
// rest, instead of panicking or blocking.
func TestNotDialed(t *testing.T) {
	for name, c := range map[string]*Client{"nil": nil, "zero": new(Client)} {
		var u Update
		_, connectErr := c.Connect(context.Background())
		for call, err := range map[string]error{
			"Connect": connectErr, "Next": c.Next(&u), "Disconnect": c.Disconnect(),
			"SetReadDeadline": c.SetReadDeadline(time.Now()), "Close": c.Close(),
		} {
			if !errors.Is(err, errNotDialed) {
				t.Errorf("%s: %s: %v", name, call, err)
			}
		}
		c.AbandonPartial()
		if c.Config() != nil || c.Stats() != (Stats{}) {
			t.Errorf("%s: Config %v, Stats %+v", name, c.Config(), c.Stats())
		}
	}
}

// TestForeignConfig: an Update decoded with a Config ParseConfig did not
// make, or read before its first update, answers with errors and empty
// values instead of panicking.
func TestForeignConfig(t *testing.T) {
	var u Update
	if u.Raw(0) != nil || u.Float64s(0) != nil || u.Config() != nil {
		t.Error("an Update before its first update has values")
	}
	for _, cfg := range []*Config{nil, {}} {
		if err := u.Decode(cfg, 1, 0, nil); !errors.Is(err, errForeignConfig) {
			t.Errorf("Decode with %#v: %v", cfg, err)
		}
		if typ := cfg.WireType(0); typ.Valid() {
			t.Errorf("WireType of %#v: %v", cfg, typ)
		}
	}
}
