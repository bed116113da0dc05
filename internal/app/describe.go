package app

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/config"
	"github.com/streamerd/streamerd/quant"
)

// Describe prints each thread (its GAMs, their outputs and its brokers),
// then the resolved layout of every datasource: each signal's offset and
// size in signal memory, with the columns that apply to its class (the
// wire type and size and the time mode of a UDPStreamer signal), and a
// line on what it sends.
func (a *App) Describe(w io.Writer) {
	for _, th := range a.threads {
		outputs := 0
		for _, gi := range th.cfg.GAMIndex {
			outputs += len(a.file.GAMs[gi].Outputs)
		}
		fmt.Fprintf(w, "thread %s: period %v, CPUMask %s, priority %d, sleep %s, %s (%s), %s\n",
			th.cfg.Name, th.cfg.Period, th.cfg.CPUMask, th.cfg.Priority, th.cfg.SleepNature,
			count(len(th.cfg.GAMIndex), "GAM"), count(outputs, "output"), count(len(th.brokers), "broker"))
	}
	for i, s := range a.sources {
		if i > 0 || len(a.threads) > 0 {
			fmt.Fprintln(w) // a blank line between sections, none before the first
		}
		fmt.Fprintf(w, "datasource %s (%s)\n", s.cfg.Name, s.cfg.Class)
		size := describeSignals(w, s.ds.Signals(), streamerOf(s.ds) != nil)
		fmt.Fprintf(w, "  signal memory: %d bytes\n", size)
		if d, ok := describerOf(s.ds); ok {
			fmt.Fprintf(w, "  %s\n", d.Describe())
		}
		if d, ok := s.ds.(interface{ SignalsString() string }); ok {
			fmt.Fprintf(w, "  signals string (flatrecv, scope -flat, record -flat, MARTe2's udpscope): %s\n", d.SignalsString())
		}
		describeSettings(w, a.file.Settings(i))
	}
}

// describeSettings prints the keys of a datasource's class with the
// values its producer was given, marking those the file left out.
func describeSettings(w io.Writer, settings []config.Setting) {
	if len(settings) == 0 {
		return
	}
	kw, vw := 0, 0
	for _, s := range settings {
		kw, vw = max(kw, len(s.Key)), max(vw, min(len(s.Value), 20)) // a long value does not push the column
	}
	fmt.Fprintf(w, "  settings:\n")
	for _, s := range settings {
		if s.Default {
			fmt.Fprintf(w, "    %-*s  %-*s  default\n", kw, s.Key, vw, s.Value)
		} else {
			fmt.Fprintf(w, "    %-*s  %s\n", kw, s.Key, s.Value)
		}
	}
}

// describer is a datasource that sums up its datagrams in one line.
type describer interface{ Describe() string }

// describerOf returns what sums up ds's datagrams: ds itself (a Replay) or
// its Internals (a producer).
func describerOf(ds any) (describer, bool) {
	if d, ok := ds.(describer); ok {
		return d, true
	}
	d, ok := internalsOf(ds).(describer)
	return d, ok
}

// count returns "1 GAM", "2 GAMs".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// describeSignals prints the signal table: the wire and time columns only
// for a UDPStreamer (the other producers send signal memory as it is and
// have no time modes), the unit column only when a signal has a unit. It
// returns the size of signal memory, where the signals lie packed in
// declaration order (datasource.DataSource).
func describeSignals(w io.Writer, sigs []datasource.Signal, udps bool) (size int) {
	units := false
	for i := range sigs {
		units = units || sigs[i].Unit != ""
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	cols := []string{"#", "signal", "type", "elements", "offset", "bytes"}
	if udps {
		cols = append(cols, "wire type", "wire bytes")
	}
	if units {
		cols = append(cols, "unit")
	}
	if udps {
		cols = append(cols, "time")
	}
	fmt.Fprintf(tw, "  %s\n", strings.Join(cols, "\t"))
	for i := range sigs {
		sig := &sigs[i]
		off := size
		size += sig.ByteSize()
		shape := fmt.Sprint(sig.Elements())
		if sig.NumberOfDimensions == 2 {
			shape = fmt.Sprintf("%d×%d", sig.Rows, sig.Cols)
		}
		row := []string{fmt.Sprint(i), sig.Name, sig.Type.String(), shape, fmt.Sprint(off), fmt.Sprint(sig.ByteSize())}
		if udps {
			wireType, wireBytes := sig.Type.String(), sig.ByteSize()
			if sig.QuantizedType != quant.None {
				wireType = sig.QuantizedType.String()
				wireBytes = sig.Elements() * sig.QuantizedType.Size()
			}
			row = append(row, wireType, fmt.Sprint(wireBytes))
		}
		if units {
			row = append(row, sig.Unit)
		}
		if udps {
			row = append(row, timing(sig))
		}
		fmt.Fprintf(tw, "  %s\n", strings.Join(row, "\t"))
	}
	tw.Flush()
	for line := range strings.Lines(b.String()) {
		fmt.Fprintln(w, strings.TrimRight(line, " \n"))
	}
	return size
}

// timing describes how a UDPStreamer client times the samples of sig.
func timing(sig *datasource.Signal) string {
	s := sig.TimeMode.String()
	if sig.TimeSignal != "" {
		s += " of " + sig.TimeSignal
	}
	if sig.SamplingRate > 0 {
		s += fmt.Sprintf(" @ %g Hz", sig.SamplingRate)
	}
	return s
}
