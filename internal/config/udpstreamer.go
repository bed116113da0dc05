package config

import (
	"net/netip"
	"strconv"

	"github.com/streamerd/streamerd/datasource/udpstreamer"
)

// udpStreamer decodes the keys of a UDPStreamer datasource into its Config
// and returns what udpstreamer.Validate reports.
func udpStreamer(t *tbl, ds *DataSource) error {
	c := &udpstreamer.Config{Name: ds.Name, Signals: ds.Signals}
	// The producer's Port 0 asks the kernel for any port: a file names one.
	c.Port = int(t.integer("Port", udpstreamer.DefaultPort, 1, 65535))
	c.MaxPayloadSize = t.nonZeroInt("MaxPayloadSize", 0)
	c.Address = t.str("Address", "")
	c.AllowedClients = prefixes(t, "AllowedClients")
	c.CPUMask = t.cpuMask("CPUMask")
	c.Priority = t.int("Priority", 0)
	c.StackSize = t.int("StackSize", 0)
	c.HandOffDepth = t.nonZeroInt("HandOffDepth", 0)
	c.NetworkSpin = t.duration("NetworkSpin")
	c.SessionPolicy, _ = udpstreamer.ParseSessionPolicy(t.enum("SessionPolicy", "replace", "replace", "first"))
	c.SessionTimeout = t.duration("SessionTimeout")
	ds.UDPStreamer = c
	return udpstreamer.Validate(c)
}

// prefixes reads an array of CIDR prefixes; a plain address is the prefix
// of that one address.
func prefixes(t *tbl, key string) []netip.Prefix {
	var out []netip.Prefix
	for i, s := range t.strings(key) {
		pfx, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				t.d.errf(t.at(key)+"["+strconv.Itoa(i)+"]", "expected a CIDR prefix such as \"127.0.0.0/8\" or an address, got %q", s)
				continue
			}
			pfx = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, pfx.Masked())
	}
	return out
}
