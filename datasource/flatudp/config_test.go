package flatudp

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/netthread"
)

func trigCfg() Config {
	return Config{
		Name:                 "Flat",
		Address:              "127.0.0.1",
		NumberOfPreTriggers:  2,
		NumberOfPostTriggers: 3,
		Signals: []datasource.Signal{
			{Name: "Trigger", Type: datasource.Uint8},
			{Name: "Ia", Type: datasource.Float32},
			{Name: "Wave", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 16},
		},
	}
}

func TestValidateGood(t *testing.T) {
	c := trigCfg()
	if err := Validate(&c); err != nil {
		t.Fatal(err)
	}
	d := c.withDefaults()
	if d.Port != 44488 || d.NumberOfBuffers != 0 {
		t.Errorf("defaults %+v", d)
	}
	c.ExecutionMode, c.NumberOfPreTriggers, c.NumberOfPostTriggers = realTimeThread, 0, 0
	c.Signals[0].Name = "Counter" // no Trigger needed
	if err := Validate(&c); err != nil {
		t.Fatal(err)
	}
	if d := c.withDefaults(); d.NumberOfBuffers != 0 {
		t.Errorf("RealTimeThread queue %d", d.NumberOfBuffers)
	}
	m := trigCfg()
	m.Address, m.Interface, m.TTL, m.Loopback, m.ByteOrder = "239.1.2.3", "127.0.0.1", 1, true, wire.Big
	if err := Validate(&m); err != nil {
		t.Fatal(err)
	}
	v6 := trigCfg()
	v6.Address = "::1"
	if err := Validate(&v6); err != nil {
		t.Fatal(err)
	}
}

// TestRingSize checks the ring's length: NumberOfBuffers when given (its
// queue for the sender what the pre-trigger history leaves), else the
// pre-trigger history plus HandOffTime of cycles at CyclePeriod, within
// HandOffBytes.
func TestRingSize(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name    string
		mutate  func(*Config)
		buffers int
		queue   int
		auto    bool
		covers  time.Duration
	}{
		{"trigger, auto", func(c *Config) {}, 502, 500, true, 500 * ms},
		{"real time, auto", func(c *Config) { c.ExecutionMode, c.NumberOfPreTriggers, c.NumberOfPostTriggers = realTimeThread, 0, 0 }, 500, 500, true, 500 * ms},
		{"10 kHz, 50 ms", func(c *Config) { c.CyclePeriod, c.HandOffTime = 100*time.Microsecond, 50*ms }, 502, 500, true, 50 * ms},
		{"budget", func(c *Config) { c.HandOffBytes = 4 * 128 }, 4, 2, true, 2 * ms},
		{"no period", func(c *Config) { c.CyclePeriod = 0 }, 502, 500, true, 500 * ms},
		{"given", func(c *Config) { c.NumberOfBuffers = 10 }, 10, 8, false, 8 * ms},
	} {
		cfg := trigCfg()
		cfg.CyclePeriod = ms
		c.mutate(&cfg)
		if err := Validate(&cfg); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		n, q := cfg.ringSize(37) // one slot: 128 bytes
		if n != c.buffers || q.Depth != c.queue || q.Auto != c.auto || q.Covers != c.covers {
			t.Errorf("%s: %d buffers, queue %+v; want %d, %d (auto %v) covering %v", c.name, n, q, c.buffers, c.queue, c.auto, c.covers)
		}
	}
}

// TestValidateRules breaks one rule at a time and checks the error names
// the parameter, the signal where there is one, and the rule.
func TestValidateRules(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*Config)
		signal string // "" for a datasource parameter
		param  string
		rule   string
	}{
		{"no address", func(c *Config) { c.Address = "" }, "", "Address", "required"},
		{"host name", func(c *Config) { c.Address = "localhost" }, "", "Address", "IP address"},
		{"unspecified", func(c *Config) { c.Address = "0.0.0.0" }, "", "Address", "unspecified"},
		{"v6 group", func(c *Config) { c.Address = "ff02::1" }, "", "Address", "IPv4"},
		{"port", func(c *Config) { c.Port = 70000 }, "", "Port", "1..65535"},
		{"mode", func(c *Config) { c.ExecutionMode = "Independent" }, "", "ExecutionMode", "invalid"},
		{"negative pre", func(c *Config) { c.NumberOfPreTriggers = -1 }, "", "NumberOfPreTriggers", "negative"},
		{"negative post", func(c *Config) { c.NumberOfPostTriggers = -1 }, "", "NumberOfPostTriggers", "negative"},
		{"pre ≥ buffers", func(c *Config) { c.NumberOfBuffers = 2 }, "", "NumberOfPreTriggers", "less than NumberOfBuffers (2)"},
		{"buffers", func(c *Config) { c.NumberOfBuffers = -3 }, "", "NumberOfBuffers", "1..1048576, or 0 for a length chosen by time"},
		{"auto pre", func(c *Config) { c.NumberOfPreTriggers = maxNumberOfBuffers }, "", "NumberOfPreTriggers", "less than 1048576"},
		{"hand-off time", func(c *Config) { c.HandOffTime = -1 }, "", "HandOffTime", "0..1m0s"},
		{"hand-off bytes", func(c *Config) { c.HandOffBytes = maxRingBytes + 1 }, "", "HandOffBytes", "0..268435456"},
		{"auto keys with buffers", func(c *Config) { c.NumberOfBuffers, c.HandOffBytes = 8, 1<<20 }, "", "NumberOfBuffers", "size an automatic ring only"},
		{"cycle period", func(c *Config) { c.CyclePeriod = -1 }, "", "CyclePeriod", "negative"},
		{"wait", func(c *Config) { c.NetworkWait = 9 }, "", "NetworkWait", "paced, spin or park"},
		{"park with a spin", func(c *Config) { c.NetworkWait, c.NetworkSpin = netthread.WaitPark, 1 }, "", "NetworkSpin", "not park"},
		{"ring bytes", func(c *Config) {
			c.NumberOfBuffers = maxNumberOfBuffers
			c.Signals[2].NumberOfElements = 4096
		}, "", "NumberOfBuffers", "ring limit"},
		{"pre in RT", func(c *Config) { c.ExecutionMode = realTimeThread; c.NumberOfPostTriggers = 0 }, "", "NumberOfPreTriggers", "only to ExecutionMode IndependentThread"},
		{"post in RT", func(c *Config) { c.ExecutionMode = realTimeThread; c.NumberOfPreTriggers = 0 }, "", "NumberOfPostTriggers", "only to ExecutionMode IndependentThread"},
		{"byte order", func(c *Config) { c.ByteOrder = 2 }, "", "ByteOrder", "little or big"},
		{"ttl", func(c *Config) { c.TTL = 256 }, "", "TTL", "0..255"},
		{"unicast interface", func(c *Config) { c.Interface = "lo" }, "", "Interface", "only to a multicast"},
		{"bad interface", func(c *Config) { c.Address = "239.1.1.1"; c.Interface = "no-such-if0" }, "", "Interface", "no-such-if0"},
		{"no signals", func(c *Config) { c.Signals = nil }, "", "Signals", "at least one"},
		{"empty name", func(c *Config) { c.Signals[1].Name = "" }, "", "Name", "must not be empty"},
		{"duplicate", func(c *Config) { c.Signals[2].Name = "Ia" }, "Ia", "Name", "unique"},
		{"count", func(c *Config) { c.Signals[2].NumberOfElements = 4097 }, "Wave", "NumberOfElements", "1..4096"},
		{"total", func(c *Config) {
			c.Signals = append(c.Signals, datasource.Signal{Name: "Big", Type: datasource.Float64, NumberOfDimensions: 1, NumberOfElements: 4096})
			c.Signals = append(c.Signals, datasource.Signal{Name: "Big2", Type: datasource.Float64, NumberOfDimensions: 1, NumberOfElements: 4096})
			c.NumberOfBuffers = 3
		}, "", "Signals", "65507"},
		{"trigger name", func(c *Config) { c.Signals[0].Name = "Trig" }, "Trig", "Name", `scalar uint8 "Trigger"`},
		{"trigger type", func(c *Config) { c.Signals[0].Type = datasource.Uint16 }, "Trigger", "Name", `scalar uint8 "Trigger"`},
		{"trigger vector", func(c *Config) {
			c.Signals[0].NumberOfDimensions, c.Signals[0].NumberOfElements = 1, 2
		}, "Trigger", "Name", `scalar uint8 "Trigger"`},
		{"trigger not first", func(c *Config) { c.Signals[0], c.Signals[1] = c.Signals[1], c.Signals[0] }, "Ia", "Name", `scalar uint8 "Trigger"`},
		{"reserved char", func(c *Config) { c.Signals[1].Name = "I[a]" }, "I[a]", "Name", "reserved by the signals string"},
		{"space", func(c *Config) { c.Signals[1].Name = " Ia" }, " Ia", "Name", "spaces"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := trigCfg()
			c.Signals = append([]datasource.Signal(nil), c.Signals...)
			tc.mutate(&c)
			err := Validate(&c)
			if err == nil {
				t.Fatal("Validate accepted it")
			}
			var ce *datasource.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("%v is not a ConfigError", err)
			}
			if _, err2 := New(c, nil, nil); err2 == nil {
				t.Error("New accepted it")
			}
			for _, e := range flatten(err) {
				var ce *datasource.ConfigError
				if errors.As(e, &ce) && ce.Parameter == tc.param && ce.Signal == tc.signal && strings.Contains(ce.Rule, tc.rule) {
					if ce.DataSource != "Flat" {
						t.Errorf("datasource %q", ce.DataSource)
					}
					return
				}
			}
			t.Errorf("no error on %s/%s containing %q in:\n%v", tc.signal, tc.param, tc.rule, err)
		})
	}
}

func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

func TestExecutionModeNames(t *testing.T) {
	for _, c := range []struct {
		mode              string
		independent, real bool
		name              string
	}{
		{"", true, false, independentThread}, {independentThread, true, false, independentThread},
		{realTimeThread, false, true, realTimeThread}, {"Independent", false, false, "Independent"},
	} {
		cfg := Config{ExecutionMode: c.mode}
		if cfg.independent() != c.independent || cfg.realTime() != c.real || cfg.mode() != c.name {
			t.Errorf("%q: independent %v, real time %v, name %q", c.mode, cfg.independent(), cfg.realTime(), cfg.mode())
		}
	}
}

func TestSignalsString(t *testing.T) {
	c := trigCfg()
	c.Signals = append(c.Signals, datasource.Signal{Name: "M", Type: datasource.Int16, NumberOfDimensions: 2, Rows: 2, Cols: 3})
	s, err := New(c, newSet(), discard())
	if err != nil {
		t.Fatal(err)
	}
	const want = "Trigger:uint8,Ia:float32,Wave:float32[16],M:int16[6]"
	if got := s.SignalsString(); got != want {
		t.Errorf("SignalsString = %q, want %q", got, want)
	}
	l, err := wire.ParseLayout(s.SignalsString())
	if err != nil || l.Size != 1+4+64+12 || s.datagramSize() != 81 {
		t.Errorf("round trip %v, size %d", err, s.datagramSize())
	}
}
