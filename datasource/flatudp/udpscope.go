package flatudp

import (
	"fmt"
	"strconv"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp/wire"
)

// maxReceiverChannels is udpscope's cap on the channel total of a list.
const maxReceiverChannels = 256

// rowError is a rule broken by row i (0-based; shown 1-based) of a signal
// list.
func rowError(i int, name, rule string) error {
	return fmt.Errorf("signal %q (row %d): %s", name, i+1, rule)
}

// udpscopeRefusal returns why udpscope refuses a valid signal list, or
// nil: udpscope's receiver rules (docs/flatudp.md, "Signals string"). A
// list with a waveform row has only waveform rows, all of the same count;
// the channel total (a scalar or a waveform row counts 1, a vector shown
// as channels counts its count) is at most maxReceiverChannels; and no
// row is char8, a type udpscope lacks. New warns when the signals string
// it prints breaks one.
func udpscopeRefusal(sigs []wire.Signal) error {
	wave := -1
	for i, s := range sigs {
		if s.Waveform {
			wave = i
			break
		}
	}
	if wave >= 0 {
		w := sigs[wave]
		for i, s := range sigs {
			switch {
			case !s.Waveform:
				return rowError(i, s.Name, "not a waveform, but row "+strconv.Itoa(wave+1)+" ("+
					strconv.Quote(w.Name)+") is: a list with a waveform row must have only waveform rows")
			case s.Count != w.Count:
				return rowError(i, s.Name, "waveform count "+strconv.Itoa(s.Count)+" differs from "+
					strconv.Itoa(w.Count)+" of "+strconv.Quote(w.Name)+": all waveform rows need the same count")
			}
		}
	}
	ch := 0
	for i, s := range sigs {
		if s.Type == datasource.Char8 {
			return rowError(i, s.Name, "char8: udpscope has no text type (flatrecv and scope show it as text)")
		}
		if s.Waveform {
			ch++
		} else {
			ch += s.Count
		}
		if ch > maxReceiverChannels {
			return rowError(i, s.Name, "channel total reaches "+strconv.Itoa(ch)+", over the cap of "+
				strconv.Itoa(maxReceiverChannels)+" (mark vectors as waveforms with w, or shorten them)")
		}
	}
	return nil
}
