package config

import (
	"net/netip"

	"github.com/streamerd/streamerd/datasource/flatudp"
	"github.com/streamerd/streamerd/datasource/flatudp/wire"
)

// flatUDP decodes the keys of a FlatUDP datasource into its Config and
// returns what flatudp.Validate reports.
func flatUDP(t *tbl, ds *DataSource) error {
	c := &flatudp.Config{Name: ds.Name, Signals: ds.Signals}
	c.Address = t.str("Address", "")
	c.Port = int(t.integer("Port", flatudp.DefaultPort, 1, 65535))
	c.ExecutionMode = executionMode(t)
	c.NumberOfPreTriggers = t.int("NumberOfPreTriggers", 0)
	c.NumberOfPostTriggers = t.int("NumberOfPostTriggers", 0)
	c.NumberOfBuffers = t.nonZeroInt("NumberOfBuffers", 0)
	if t.enum("ByteOrder", "little", "little", "big") == "big" {
		c.ByteOrder = wire.Big
	}
	// TTL and Loopback change nothing for a unicast Address (the producer
	// ignores them); Interface there is the producer's error.
	if a, err := netip.ParseAddr(c.Address); err == nil && !a.Unmap().IsMulticast() {
		for _, k := range []string{"TTL", "Loopback"} {
			if t.has(k) {
				t.errf(k, "applies only to a multicast Address")
			}
		}
	}
	c.TTL = t.int("TTL", 1)
	c.Interface = t.str("Interface", "")
	c.Loopback = t.boolean("Loopback", true)
	c.CPUMask = t.cpuMask("CPUMask")
	c.Priority = t.int("Priority", 0)
	c.NetworkSpin = t.duration("NetworkSpin")
	c.StackSize = t.int("StackSize", 0)
	ds.FlatUDP = c
	return flatudp.Validate(c)
}

// executionMode reads ExecutionMode; a misspelt mode is reported here and
// becomes an invalid mode, so neither mode's rules are checked against it.
func executionMode(t *tbl) flatudp.ExecutionMode {
	def := flatudp.IndependentThread.String()
	s := t.enum("ExecutionMode", def, def, flatudp.RealTimeThread.String())
	if t.failed("ExecutionMode") {
		return flatudp.ExecutionMode(0xFF)
	}
	m, _ := flatudp.ParseExecutionMode(s)
	return m
}
