package app

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/streamerd/streamerd/datasource"
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
		if d, ok := s.ds.(describer); ok {
			fmt.Fprintf(w, "  %s\n", d.Describe())
		}
		if d, ok := s.ds.(interface{ SignalsString() string }); ok {
			fmt.Fprintf(w, "  udpscope signals: %s\n", d.SignalsString())
		}
	}
}

// describer is a datasource that sums up its datagrams in one line.
type describer interface{ Describe() string }
