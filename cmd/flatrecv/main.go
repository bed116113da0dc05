// Command flatrecv receives the header-less datagrams of MARTe2's UDPSender (or streamerd's FlatUDP) and prints them as CSV, JSON lines or per-second stats.
//
// Usage:
//
//	flatrecv -listen :44488 [-group 239.0.0.1 -iface 127.0.0.1] \
//	    -signals 'Trigger:uint8,Ia:float32,Wave:float32[16]' \
//	    [-endian little|big] [-format csv|json|stats] [-n N]
//
// CSV has a header of the signal names, vectors expanded as Wave[0] ..
// Wave[15]; JSON lines have one object per datagram, vectors as arrays and
// NaN or infinities as null. A char8[N] signal is one text field: its
// bytes up to the first NUL, a backslash as \\ and any byte that is not
// printable UTF-8 as \xNN (then CSV- or JSON-quoted). Integers print
// exactly, floats in the shortest form that reads back to the same value.
// Each distinct wrong datagram size is reported once on stderr. flatrecv
// stops on SIGINT or SIGTERM, or after -n datagrams of the expected size,
// and prints a summary on stderr. A second signal, or an output still
// blocked 2 s after the first, ends it at once with status 130.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp"
	"github.com/streamerd/streamerd/datasource/flatudp/client"
	"github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/internal/cli"
)

func main() {
	cli.Main("flatrecv", cli.Grace, func(ctx context.Context) int { return run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil) })
}

// usage is what -h prints besides the flags.
var usage = cli.Usage{
	Synopsis: []string{"-signals 'Name:type[count],...' [-listen :44488] [-group 239.0.0.1 [-iface 127.0.0.1]] [-endian little|big] [-format csv|json|stats] [-n N]"},
	Summary:  "Receives the header-less datagrams of MARTe2's UDPSender (or streamerd's FlatUDP), laid out by the -signals list, and prints them. It stops after -n datagrams or on SIGINT or SIGTERM (exit 0), exits 1 when the socket fails, 2 on bad flags or a bad signal list.",
	Examples: []string{
		"flatrecv -listen 127.0.0.1:44488 -signals 'Counter:uint32,Time:uint32,Sine:float32,Cosine:float64,Wave:uint16[4]'",
		"flatrecv -listen :44488 -signals 'Trigger:uint8,Counter:uint32,Value:float32' -format json -n 10",
		"flatrecv -listen :44488 -group 239.0.0.1 -signals 'Counter:uint32' -format stats",
	},
}

type options struct {
	cli.FlatFlags
	listen, form string
	n            uint64
	interval     time.Duration
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := cli.NewFlagSet("flatrecv", stderr, usage)
	fs.StringVar(&o.listen, "listen", ":"+strconv.Itoa(flatudp.DefaultPort), "`host:port` to listen on; with -group only the port is used")
	o.FlatFlags.Register(fs, "-listen", "")
	fs.StringVar(&o.form, "format", "csv", "output: csv, json (one object per line) or stats (once per -interval)")
	fs.Uint64Var(&o.n, "n", 0, "stop after `N` datagrams of the expected size (0: run until SIGINT or SIGTERM)")
	fs.DurationVar(&o.interval, "interval", time.Second, "stats period for -format stats")
	if err := cli.Parse(fs, args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.Signals == "":
		return o, errors.New("-signals is required, e.g. -signals 'Trigger:uint8,Ia:float32,Wave:float32[16]'")
	case o.form != "csv" && o.form != "json" && o.form != "stats":
		return o, fmt.Errorf("-format %q: want csv, json or stats", o.form)
	case o.interval <= 0:
		return o, errors.New("-interval must be positive")
	}
	return o, o.FlatFlags.Check()
}

// run is flatrecv's main. ready, if not nil, is called with the bound
// address once the socket is open.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(net.Addr)) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return cli.ParseError("flatrecv", stderr, err)
	}
	l, order, err := layoutOf(o)
	if err != nil {
		fmt.Fprintln(stderr, "flatrecv:", err)
		return cli.ExitUsage
	}
	conn, err := listen(o)
	if err != nil {
		fmt.Fprintln(stderr, "flatrecv:", err)
		return cli.ExitError
	}
	r := client.NewReceiver(conn, l)
	if ready != nil {
		ready(conn.LocalAddr())
	}

	// Closing the socket is what stops a blocked Read.
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		<-ctx.Done()
		r.Close()
	})
	if o.form == "stats" {
		wg.Go(func() { printStats(ctx, r, o.interval, stdout) })
	}
	code := receive(ctx, r, l, o, order, stdout, stderr)
	cancel()
	wg.Wait()
	st := r.Stats()
	fmt.Fprintf(stderr, "flatrecv: %d datagrams, %d bytes: %d of %d bytes, %d of a wrong size (%d distinct sizes)\n",
		st.Datagrams, st.Bytes, st.Datagrams-st.WrongSize, l.Size, st.WrongSize, st.WrongSizes)
	return code
}

// layoutOf returns the layout and byte order the flags describe.
func layoutOf(o options) (*wire.Layout, wire.ByteOrder, error) {
	l, err := wire.ParseLayout(o.Signals)
	if err != nil {
		return nil, 0, err
	}
	order, err := cli.ParseByteOrder(o.Endian)
	return l, order, err
}

// receive reads datagrams until -n of them, the end of ctx or an error,
// printing a row for each unless only stats are wanted, and returns the
// exit code.
func receive(ctx context.Context, r *client.Receiver, l *wire.Layout, o options, order wire.ByteOrder, stdout, stderr io.Writer) int {
	out := bufio.NewWriterSize(stdout, 64<<10)
	defer out.Flush()
	var rw *rowWriter
	if o.form != "stats" {
		rw = newRowWriter(l, o.form == "json")
		if o.form == "csv" {
			out.Write(rw.header())
			out.Flush()
		}
	}
	for got := uint64(0); o.n == 0 || got < o.n; {
		b, from, err := r.Read()
		if err != nil {
			if errors.Is(err, wire.ErrSize) {
				fmt.Fprintf(stderr, "flatrecv: datagram of %d bytes from %v, expected %d, check the signal list\n", len(b), from, l.Size)
				continue
			}
			if !errors.Is(err, net.ErrClosed) || ctx.Err() == nil {
				fmt.Fprintln(stderr, "flatrecv:", err)
				return cli.ExitError
			}
			break
		}
		got++
		if rw != nil {
			out.Write(rw.row(b, order))
			out.Flush() // a row per datagram reaches a pipe at once
		}
	}
	return cli.ExitOK
}

func listen(o options) (*net.UDPConn, error) {
	if o.Group == "" {
		return cli.ListenUDP(o.listen)
	}
	_, p, err := net.SplitHostPort(o.listen)
	if err != nil {
		return nil, fmt.Errorf("-listen %q: %v", o.listen, err)
	}
	port, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("-listen %q: bad port", o.listen)
	}
	return client.ListenMulticast(o.Group, o.Iface, int(port))
}

// printStats prints the rates of each interval until ctx is done.
func printStats(ctx context.Context, r *client.Receiver, every time.Duration, w io.Writer) {
	last := r.Stats()
	cli.Every(ctx, every, func(dt float64) {
		st := r.Stats()
		fmt.Fprintf(w, "%.0f datagrams/s, %.0f bytes/s, %d wrong-size (%d total, %d distinct sizes)\n",
			float64(st.Datagrams-last.Datagrams)/dt, float64(st.Bytes-last.Bytes)/dt,
			st.WrongSize-last.WrongSize, st.WrongSize, st.WrongSizes)
		last = st
	})
}

// rowWriter formats decoded datagrams into one reused buffer.
type rowWriter struct {
	l     *wire.Layout
	json  bool
	keys  [][]byte // JSON: `"name":` per signal
	raw   []uint64
	types []datasource.Type
	buf   []byte
	text  []byte // a char8 signal's escaped text
}

func newRowWriter(l *wire.Layout, asJSON bool) *rowWriter {
	w := &rowWriter{l: l, json: asJSON, raw: make([]uint64, l.TotalElements())}
	for _, s := range l.Signals {
		for range s.Count {
			w.types = append(w.types, s.Type)
		}
		w.keys = append(w.keys, jsonKey(s.Name))
	}
	return w
}

// header returns the CSV header line: vectors expanded as name[i].
func (w *rowWriter) header() []byte {
	var b []byte
	for i, s := range w.l.Signals {
		if s.Type == datasource.Char8 {
			if i > 0 {
				b = append(b, ',')
			}
			b = cli.AppendCSVField(b, s.Name)
			continue
		}
		for j := range s.Count {
			if i > 0 || j > 0 {
				b = append(b, ',')
			}
			name := s.Name
			if s.Count > 1 {
				name += "[" + strconv.Itoa(j) + "]"
			}
			b = cli.AppendCSVField(b, name)
		}
	}
	return append(b, '\n')
}

// jsonKey returns `"name":`, the name escaped for JSON and for a terminal.
func jsonKey(name string) []byte { return append(cli.AppendJSONString(nil, name), ':') }

// row returns the line of one datagram of the layout's size. The bytes are
// the writer's buffer, valid until the next call.
func (w *rowWriter) row(dg []byte, order wire.ByteOrder) []byte {
	b := w.buf[:0]
	if err := w.l.DecodeRaw(w.raw, dg, order); err != nil {
		return b // the receiver hands over only datagrams of the layout's size
	}
	if !w.json {
		k := 0
		for i, s := range w.l.Signals {
			if i > 0 {
				b = append(b, ',')
			}
			if s.Type == datasource.Char8 {
				b = w.appendText(b, dg, i)
				k += s.Count
				continue
			}
			for j := range s.Count {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendValue(b, w.types[k], w.raw[k], false)
				k++
			}
		}
	} else {
		b = append(b, '{')
		k := 0
		for i, s := range w.l.Signals {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, w.keys[i]...)
			if s.Type == datasource.Char8 {
				b = w.appendText(b, dg, i)
				k += s.Count
				continue
			}
			if s.Count > 1 {
				b = append(b, '[')
			}
			for j := range s.Count {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendValue(b, s.Type, w.raw[k], true)
				k++
			}
			if s.Count > 1 {
				b = append(b, ']')
			}
		}
		b = append(b, '}')
	}
	b = append(b, '\n')
	w.buf = b
	return b
}

// appendText appends char8 signal i of dg as one CSV field or JSON
// string: its escaped text (cli.AppendText), quoted.
func (w *rowWriter) appendText(b, dg []byte, i int) []byte {
	w.text = cli.AppendText(w.text[:0], w.l.Field(dg, i))
	quote := w.json || bytes.ContainsAny(w.text, `",`)
	if quote {
		b = append(b, '"')
	}
	for _, c := range w.text {
		switch {
		case c == '"' && w.json, c == '\\' && w.json:
			b = append(b, '\\', c)
		case c == '"':
			b = append(b, '"', '"')
		default:
			b = append(b, c)
		}
	}
	if quote {
		b = append(b, '"')
	}
	return b
}

// appendValue formats a raw value of type t: integers exactly, floats in
// the shortest form that reads back to the same value at their own
// precision. In JSON, NaN and the infinities are null.
func appendValue(b []byte, t datasource.Type, raw uint64, asJSON bool) []byte {
	if f := t.Float64(raw); asJSON && t.IsFloat() && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return append(b, "null"...)
	}
	return cli.AppendRaw(b, t, raw)
}
