package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/replay"
	"github.com/streamerd/streamerd/rt/cpu"
)

// replayDS decodes the keys of a Replay datasource, opens its recording
// for the signal list the datasource serves, and returns what
// replay.Validate and udpstreamer.Validate report. A recording that cannot
// be read, or whose signals a UDPStreamer cannot serve, is reported at
// File.
func replayDS(t *tbl, ds *DataSource) error {
	c := &Replay{}
	c.Server.Name = ds.Name
	replayKeys.read(t, c)
	ds.Replay = c
	err := replay.Validate(&c.Options)
	if c.File == "" || t.failed("File") {
		return err
	}
	if !filepath.IsAbs(c.File) {
		c.File = filepath.Join(filepath.Dir(t.d.f.Path), c.File)
	}
	sigs, _, ierr := replay.Inspect(c.File)
	if ierr != nil {
		t.errf("File", "%s", strings.TrimPrefix(strings.TrimPrefix(ierr.Error(), "replay: "), "record: "))
		return err
	}
	ds.Signals = sigs
	srv := c.Server
	srv.Signals = sigs
	errs := []error{err}
	for _, e := range flatten(udpstreamer.Validate(&srv)) {
		var ce *datasource.ConfigError
		if errors.As(e, &ce) && ce.Index >= 0 {
			t.errf("File", "%s: signal %q of the recording cannot be served: %s: %s", c.File, ce.Signal, ce.Parameter, ce.Rule)
			continue
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// flatten returns the errors joined in err, recursively.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	u, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range u.Unwrap() {
		out = append(out, flatten(e)...)
	}
	return out
}

// speed is the pace of a replay: a number MinSpeed..MaxSpeed, or "max",
// read as 0 (flat out).
func speed() valueType[float64] {
	n := numberIn(replay.MinSpeed, replay.MaxSpeed)
	what := fmt.Sprintf("a number %v..%v or \"max\"", replay.MinSpeed, replay.MaxSpeed)
	return valueType[float64]{
		kind:    "number or string",
		allowed: fmt.Sprintf("%v..%v or `\"max\"`", replay.MinSpeed, replay.MaxSpeed),
		read: func(r at, v any) (float64, bool) {
			switch x := v.(type) {
			case float64, int64:
				return n.read(r, v)
			case string:
				if x == "max" {
					return 0, true
				}
			}
			r.wrong(what, v)
			return 0, false
		},
		format: func(x float64) string {
			if x == 0 {
				return `"max"`
			}
			return formatFloat(x)
		},
	}
}

// serverKey is the key name of the UDPStreamer that serves the recording:
// the declaration of the UDPStreamer class, whose meaning it has, with doc
// (the UDPStreamer's rules and reasons stay in its section).
func serverKey(name, doc string) key[Replay] {
	return via(udpsConfigKeys.find(name), func(c *Replay) *udpsConfig { return &c.Server }).Doc(doc)
}

// replayKeys are the keys of a Replay datasource: the recording and its
// pace, the keys of the UDPStreamer that serves it, and the pacing
// thread's. Its rules are replay.Validate's and udpstreamer.Validate's.
var replayKeys = table[Replay]{
	name: ClassReplay,
	defaults: func(c *Replay) {
		c.Server.Port = udpstreamer.DefaultPort
		c.Speed, c.WaitClient = 1, true
	},
	keys: []key[Replay]{
		field("File", str(), func(c *Replay) *string { return &c.File }).
			Required("the path of a recording").NotEmpty().
			Doc("the recording to play, a Parquet file written by `record` ([recording.md](recording.md)); a relative path is relative to the directory of the configuration file. It is opened and checked when the configuration is loaded (`-check` too): a missing, cut short, corrupt or foreign file is an error here, and its signal list is the datasource's."),
		field("Speed", speed(), func(c *Replay) *float64 { return &c.Speed }).
			Doc("times the recorded pace; `\"max\"`: flat out, each row as soon as the network thread has room for it"),
		field("Loop", boolean(), func(c *Replay) *bool { return &c.Loop }).
			Doc("play the recording again from its first row after its last; without it the replay ends there and the application goes on"),
		field("WaitClient", boolean(), func(c *Replay) *bool { return &c.WaitClient }).
			Doc("hold the first row until a client connects, so it sees the recording from its start; `false`: play from the start of the application, whether a client listens or not. The web scope (`ScopeAddress`) is not a client: to watch a replay there alone, set `false`."),
		serverKey("Address", "IP address to bind; `\"\"` = all interfaces"),
		serverKey("Port", "UDP port listened on"),
		serverKey("AllowedClients", "as for [UDPStreamer](#class-udpstreamer): **empty = any client**; list the clients unless the port is bound to loopback or firewalled"),
		serverKey("MaxPayloadSize", "as for UDPStreamer"),
		serverKey("HandOffDepth", fmt.Sprintf("1..%d, rows that may wait for the network thread. Unlike a live UDPStreamer's, a replay never overwrites a row: the pacing thread waits for a free slot, so a stalled network thread delays the rows and none is skipped.", udpsMaxHandOffDepth)).
			Default(shown(replay.DefaultHandOffDepth)),
		serverKey("CPUMask", "network thread's CPU mask, as for UDPStreamer"),
		serverKey("Priority", "0 (normal scheduling) or 1..99: the network thread's SCHED_FIFO priority, as for UDPStreamer"),
		serverKey("NetworkSpin", "as for UDPStreamer"),
		serverKey("SessionPolicy", "as for UDPStreamer"),
		serverKey("SessionTimeout", "as for UDPStreamer"),
		field("PacingCPUMask", cpuMask(), func(c *Replay) *cpu.Mask { return &c.PacingCPUMask }).
			Doc("CPU mask of the pacing thread, which writes each row into signal memory at its time and synchronises, as for threads"),
		field("PacingPriority", integer[int](0, 99), func(c *Replay) *int { return &c.PacingPriority }).
			Doc("0 (normal scheduling) or 1..99: the pacing thread's SCHED_FIFO priority (needs `CAP_SYS_NICE`)"),
	},
}
