// Package broker copies GAM outputs into datasource memory and synchronises the datasource, on the RT thread.
//
// A program binds each of its output arrays to a signal of a datasource
// by name (Bind), builds one MemoryMapSynchronisedOutputBroker per
// datasource, and calls its Execute once per cycle: a copy per output,
// then the datasource's Synchronise. docs/embedding.md says where this
// fits in a control loop and what Execute costs.
package broker

import (
	"errors"
	"fmt"
	"strings"

	"github.com/streamerd/streamerd/datasource"
)

// Output binds one array of the program (a GAM's output) to the datasource
// signal it feeds. Make it with Bind or BindBytes; the broker checks it
// against the signal (name, element type, element count) when it is
// built. The array must stay valid and must not be resized while the
// broker runs; only the RT thread writes it between Executes.
type Output struct {
	signal string
	typ    datasource.Type
	n      int    // elements
	given  string // what the caller gave, for errors: "[]float32 of 4 elements"
	src    []byte
}

// Bind binds the Go slice src to the signal named signal: the signal's
// element type must be T's (a float32 signal takes a []float32, a named
// type such as `type Volts float32` too) and its element count len(src).
// The broker copies src as it lies in memory, native byte order.
func Bind[T datasource.Number](signal string, src []T) Output {
	t := datasource.TypeOf[T]()
	return Output{signal: signal, typ: t, n: len(src), src: bytesOf(src),
		given: fmt.Sprintf("[]%s of %s", t, elements(len(src)))}
}

// BindBytes binds raw memory of declared element type t to the signal
// named signal: the signal must be of type t with len(src)/t.Size()
// elements. It is for a char8 signal (text, which Bind cannot express: a
// []byte is uint8) and for memory a program holds as bytes.
func BindBytes(signal string, t datasource.Type, src []byte) Output {
	o := Output{signal: signal, typ: t, src: src, n: -1,
		given: fmt.Sprintf("%d bytes declared %s", len(src), t)}
	if t.Valid() && len(src)%t.Size() == 0 {
		o.n = len(src) / t.Size()
	}
	return o
}

func elements(n int) string {
	if n == 1 {
		return "1 element"
	}
	return fmt.Sprintf("%d elements", n)
}

type copyEntry struct {
	dst, src []byte
}

// MemoryMapSynchronisedOutputBroker is MARTe2's broker of the same name: a
// copy table computed once, then on every Execute a copy per entry and one
// call to the datasource's Synchronise. Execute runs on the RT thread only.
type MemoryMapSynchronisedOutputBroker struct {
	name        string
	copies      []copyEntry
	synchronise func() error
}

// errNilBroker is Execute's error on a nil broker (one whose constructor
// failed, its error ignored).
var errNilBroker = errors.New("broker: Execute on a nil or zero broker (make one with NewMemoryMapSynchronisedOutputBroker, and check its error)")

// NewMemoryMapSynchronisedOutputBroker builds the copy table for outputs
// into ds, whose memory must be allocated (AllocateMemory or Start; a
// producer New did not make is refused with datasource.ErrNotMade). Each
// output names a signal of ds (datasource.ErrUnknownSignal otherwise), has
// its element type and element count (datasource.ErrSignalMismatch), and
// a signal is fed by one output at most; the error lists every broken
// rule, naming the signal, what it declares and what was given. Signals
// fed by no output keep whatever their memory holds (zero at
// allocation), which is how a value written directly by the embedding
// code stays. Names are looked up in a map: building a broker for n
// outputs costs O(n + signals).
func NewMemoryMapSynchronisedOutputBroker(ds datasource.DataSource, outputs []Output) (*MemoryMapSynchronisedOutputBroker, error) {
	if ds == nil {
		return nil, errors.New("broker: nil datasource")
	}
	name := ds.Name()
	sigs := ds.Signals()
	// Memory not allocated, a producer closed or one New did not make
	// (which has no signals) is refused here rather than at Execute.
	if _, err := ds.GetSignalMemoryBuffer(0); err != nil && (len(sigs) > 0 || errors.Is(err, datasource.ErrNotMade)) {
		return nil, fmt.Errorf("broker for datasource %q: %w", name, err)
	}
	index := make(map[string]int, len(sigs))
	for i := range sigs {
		index[sigs[i].Name] = i
	}
	fed := make([]bool, len(sigs))
	var errs []error
	b := &MemoryMapSynchronisedOutputBroker{name: name, synchronise: ds.Synchronise}
	for _, o := range outputs {
		i, ok := index[o.signal]
		if !ok {
			errs = append(errs, fmt.Errorf("broker for datasource %q: output %q: %w%s", name, o.signal, datasource.ErrUnknownSignal, known(sigs)))
			continue
		}
		if fed[i] {
			errs = append(errs, fmt.Errorf("broker for datasource %q: signal %q is fed by more than one output", name, o.signal))
			continue
		}
		fed[i] = true
		sig := &sigs[i]
		if o.typ != sig.Type || o.n != sig.Elements() {
			hint := ""
			if sig.Type == datasource.Char8 && o.typ == datasource.Uint8 {
				hint = " (text: bind it with BindBytes(signal, datasource.Char8, b))"
			}
			errs = append(errs, fmt.Errorf("broker for datasource %q: signal %q is %s[%d], the output bound to it is %s: %w%s",
				name, o.signal, sig.Type, sig.Elements(), o.given, datasource.ErrSignalMismatch, hint))
			continue
		}
		dst, err := ds.GetSignalMemoryBuffer(i)
		if err != nil {
			errs = append(errs, fmt.Errorf("broker for datasource %q: %w", name, err))
			break
		}
		b.copies = append(b.copies, copyEntry{dst: dst, src: o.src})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return b, nil
}

// known lists the signal names of a small datasource, for the error of an
// unknown name.
func known(sigs []datasource.Signal) string {
	if len(sigs) == 0 || len(sigs) > 8 {
		return ""
	}
	names := make([]string, len(sigs))
	for i := range sigs {
		names[i] = sigs[i].Name
	}
	return " (its signals: " + strings.Join(names, ", ") + ")"
}

// Execute copies every output into datasource memory and returns what
// Synchronise returns: after the
// datasource's Close, an error matching datasource.ErrClosed, which the
// control loop sees. It does not allocate, not even for an error.
func (b *MemoryMapSynchronisedOutputBroker) Execute() error {
	if b == nil || b.synchronise == nil { // nil, or the zero value: not made by the constructor
		return errNilBroker
	}
	for i := range b.copies {
		c := &b.copies[i]
		copy(c.dst, c.src)
	}
	return b.synchronise()
}
