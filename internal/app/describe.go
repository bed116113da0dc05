package app

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp"
	"github.com/streamerd/streamerd/datasource/rd100s"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/config"
	"github.com/streamerd/streamerd/quant"
)

// Describe prints the resolved layout of every datasource: each signal's
// offset and size in signal memory and its size on the wire, the payload
// size and the fragment count.
func (a *App) Describe(w io.Writer) {
	for _, th := range a.threads {
		fmt.Fprintf(w, "thread %s: period %v, CPUMask %s, priority %d, sleep %s, %d GAM steps, %d brokers\n",
			th.cfg.Name, th.cfg.Period, th.cfg.CPUMask, th.cfg.Priority, th.cfg.SleepNature, len(th.gams), len(th.brokers))
	}
	for _, s := range a.sources {
		fmt.Fprintf(w, "\ndatasource %s (%s)\n", s.cfg.Name, s.cfg.Class)
		var mem *datasource.Memory
		if m, ok := s.ds.(interface{ Memory() *datasource.Memory }); ok {
			mem = m.Memory()
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  #\tsignal\ttype\telements\toffset\tbytes\twire type\twire bytes\tunit\ttime")
		for i, sig := range s.ds.Signals() {
			wireType, wireBytes := sig.Type.String(), sig.ByteSize()
			if sig.QuantizedType != quant.None {
				wireType = sig.QuantizedType.String()
				wireBytes = sig.Elements() * sig.QuantizedType.Size()
			}
			off := 0
			if mem != nil {
				off = mem.Offset(i)
			}
			shape := fmt.Sprint(sig.Elements())
			if sig.NumberOfDimensions == 2 {
				shape = fmt.Sprintf("%d×%d", sig.Rows, sig.Cols)
			}
			timing := sig.TimeMode.String()
			if sig.TimeSignal != "" {
				timing += " of " + sig.TimeSignal
			}
			if sig.SamplingRate > 0 {
				timing += fmt.Sprintf(" @ %g Hz", sig.SamplingRate)
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%d\t%d\t%s\t%d\t%s\t%s\n", i, sig.Name, sig.Type, shape, off, sig.ByteSize(), wireType, wireBytes, sig.Unit, timing)
		}
		tw.Flush()
		if mem != nil {
			fmt.Fprintf(w, "  signal memory: %d bytes\n", mem.Size())
		}
		switch ds := s.ds.(type) {
		case *udpstreamer.Streamer:
			p := s.cfg.UDPStreamer
			fmt.Fprintf(w, "  DATA payload: %d bytes in %d fragment(s) of at most %d bytes (MaxPayloadSize %d), port %d\n",
				ds.PayloadSize(), ds.FragmentCount(), p.MaxPayloadSize-17, p.MaxPayloadSize, p.Port)
		case *flatudp.Sender:
			p := s.cfg.FlatUDP
			fmt.Fprintf(w, "  datagram: %d bytes to %v, %s, byte order %s\n", ds.DatagramSize(), ds.Destination(), p.ExecutionMode, map[bool]string{false: "little", true: "big"}[p.BigEndian])
		case *rd100s.Encoder:
			fmt.Fprintf(w, "  36-byte RD100S-ENC-UDP v1 packets to %v at %g Hz\n", ds.Dest(), ds.RateHz())
		}
		describeMore(w, s.cfg, s.ds)
	}
}

// describeMore prints what a producer adds to the layout.
func describeMore(w io.Writer, c *config.DataSource, ds datasource.DataSource) {
	if d, ok := ds.(interface{ SignalsString() string }); ok {
		fmt.Fprintf(w, "  udpscope signals: %s\n", d.SignalsString())
	}
}
