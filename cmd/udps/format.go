package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/internal/cli"
	"github.com/streamerd/streamerd/quant"
)

// Output formats.
const (
	formatView  = "view"
	formatTable = "table"
	formatCSV   = "csv"
	formatJSON  = "json"
	formatStats = "stats"
)

// flushAt is how many bytes a printer gathers before handing them to the
// output: a 16 MiB update is printed in pieces, never built whole.
const flushAt = 32 << 10

// writeConfigTable prints cfg as an aligned table: index, name, type, wire
// type, dimensions, unit, quantisation range and time mode.
func writeConfigTable(w io.Writer, server string, cfg *client.Config) error {
	fmt.Fprintf(w, "CONFIG from %s: %d signals, DATA payload %d bytes\n", server, len(cfg.Signals), payloadBytes(cfg))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tNAME\tTYPE\tWIRE\tDIMS\tUNIT\tRANGE\tTIME")
	for i := range cfg.Signals {
		s := &cfg.Signals[i]
		rng := "-"
		if s.QuantizedType != quant.None {
			rng = "[" + fmtFloat(s.RangeMin) + ", " + fmtFloat(s.RangeMax) + "]"
		}
		fmt.Fprintf(tw, "%d\t%s\t%v\t%v\t%s\t%s\t%s\t%s\n", i, cli.Escape(s.Name), s.Type, cfg.WireType(i), cli.Shape(s), unitOf(s), rng, timeDesc(s))
	}
	return tw.Flush()
}

// payloadBytes is the size of every DATA payload of cfg's session: the
// 8-byte hrtTimestamp, then every signal's wire elements (docs/udpstreamer.md,
// "DATA payload").
func payloadBytes(cfg *client.Config) int {
	n := 8
	for i := range cfg.Signals {
		n += cfg.Signals[i].Elements() * cfg.WireType(i).Size()
	}
	return n
}

// unitOf is a signal's unit for a terminal: escaped, "-" when empty.
func unitOf(s *datasource.Signal) string {
	if s.Unit == "" {
		return "-"
	}
	return cli.Escape(s.Unit)
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func timeDesc(s *datasource.Signal) string {
	if s.TimeMode == datasource.PacketTime {
		return s.TimeMode.String()
	}
	d := s.TimeMode.String() + "(" + cli.Escape(s.TimeSignal)
	if s.TimeMode == datasource.FirstSample || s.TimeMode == datasource.LastSample {
		d += ", " + fmtFloat(s.SamplingRate) + " Hz"
	}
	return d + ")"
}

// kind is how a signal's values are printed.
type kind uint8

const (
	kindFloat   kind = iota // float64 or dequantised: shortest float64 form
	kindFloat32             // raw float32: shortest float32 form
	kindInt                 // signed integer, exact
	kindUint                // unsigned integer, exact
)

func kindOf(cfg *client.Config, i int) kind {
	s := &cfg.Signals[i]
	switch {
	case s.QuantizedType != quant.None || s.Type == datasource.Float64:
		return kindFloat
	case s.Type == datasource.Float32:
		return kindFloat32
	case s.Type.Signed():
		return kindInt
	}
	return kindUint
}

// printer formats updates of one Config into a reused buffer, handed to
// out whenever it holds flushAt bytes. Not safe for concurrent use.
type printer struct {
	cfg       *client.Config
	format    string
	perSample bool
	out       *bufio.Writer
	ctx       context.Context // a long update stops being printed when it ends

	kinds []kind
	keys  [][]byte // JSON: `"name":`, per signal
	buf   []byte

	// per-sample plan
	n       int   // samples per update: the largest element count
	cols    []int // signals printed: scalars and those of n elements, CONFIG order
	omitted []string
	groups  []int    // per time column, a signal whose times it prints
	tnames  []string // per time column, its name
}

// errTooWide refuses a CSV that would have more columns than -max-columns.
type errTooWide struct{ columns, max int }

func (e errTooWide) Error() string {
	return fmt.Sprintf("the CONFIG makes %d CSV columns (one per element), more than -max-columns %d: use -format json, -per-sample, or a larger -max-columns", e.columns, e.max)
}

// newPrinter plans the output of cfg's updates. A CSV of more than
// maxColumns columns is refused.
func newPrinter(ctx context.Context, cfg *client.Config, o options, out *bufio.Writer) (*printer, error) {
	p := &printer{cfg: cfg, format: o.format, perSample: o.perSample, out: out, ctx: ctx}
	columns := len(prefixColumns)
	for i := range cfg.Signals {
		p.kinds = append(p.kinds, kindOf(cfg, i))
		p.keys = append(p.keys, append(cli.AppendJSONString(nil, cfg.Signals[i].Name), ':'))
		p.n = max(p.n, cfg.Signals[i].Elements())
		columns += cfg.Signals[i].Elements()
	}
	if o.perSample {
		p.planSamples()
		columns = len(prefixColumns) + 1 + len(p.groups) + len(p.cols)
	}
	if p.format == formatCSV && columns > o.maxColumns {
		return nil, errTooWide{columns, o.maxColumns}
	}
	return p, nil
}

// planSamples chooses the signals and time columns of -per-sample.
func (p *printer) planSamples() {
	type base struct {
		mode datasource.TimeMode
		time string
		rate float64
	}
	seen := map[base]bool{}
	cfg := p.cfg
	for i := range cfg.Signals {
		s, el := &cfg.Signals[i], cfg.Signals[i].Elements()
		if el != 1 && el != p.n {
			p.omitted = append(p.omitted, cli.Escape(s.Name))
			continue
		}
		p.cols = append(p.cols, i)
		if el != p.n && p.n > 1 {
			continue // a scalar, repeated on every row
		}
		b := base{s.TimeMode, s.TimeSignal, s.SamplingRate}
		if !seen[b] {
			seen[b] = true
			p.groups = append(p.groups, i)
		}
	}
	for _, g := range p.groups {
		name := "time_s"
		if len(p.groups) > 1 {
			name += ":" + cfg.Signals[g].Name
		}
		p.tnames = append(p.tnames, name)
	}
}

// prefixColumns come before the signals in CSV and JSON.
var prefixColumns = []string{"counter", "hrt_ns", "lost", "skipped", "silence_s"}

// writeHeader writes the CSV header line: the prefix columns, then every
// element as name, name[k] for a vector or name[r][c] for a matrix. With
// per-sample, k and the time columns come before the signals, each signal
// one column.
func (p *printer) writeHeader() error {
	b := append(p.buf[:0], strings.Join(prefixColumns, ",")...)
	if p.perSample {
		b = append(b, ",k"...)
		for _, t := range p.tnames {
			b = cli.AppendCSVField(append(b, ','), t)
		}
		for _, i := range p.cols {
			b = cli.AppendCSVField(append(b, ','), p.cfg.Signals[i].Name)
		}
		return p.end(append(b, '\n'))
	}
	for i := range p.cfg.Signals {
		s := &p.cfg.Signals[i]
		for k := range p.cfg.Signals[i].Elements() {
			name := s.Name
			switch s.NumberOfDimensions {
			case 1:
				name += "[" + strconv.Itoa(k) + "]"
			case 2:
				name += "[" + strconv.Itoa(k/s.Cols) + "][" + strconv.Itoa(k%s.Cols) + "]"
			}
			b = cli.AppendCSVField(append(b, ','), name)
		}
	}
	return p.end(append(b, '\n'))
}

// flush hands b to the output once it holds flushAt bytes, and returns
// the buffer to go on with; it fails when ctx ended.
func (p *printer) flush(b []byte) ([]byte, error) {
	if len(b) < flushAt {
		return b, nil
	}
	p.buf = b
	if _, err := p.out.Write(b); err != nil {
		return b[:0], err
	}
	return b[:0], p.ctx.Err()
}

// end hands the rest of b to the output and flushes it, so that every
// update reaches a pipe at once.
func (p *printer) end(b []byte) error {
	p.buf = b[:0]
	if _, err := p.out.Write(b); err != nil {
		return err
	}
	return p.out.Flush()
}

// write prints one update in the printer's format: one line, or with
// per-sample one line per sample.
func (p *printer) write(u *client.Update) error {
	b := p.buf[:0]
	var err error
	switch {
	case p.perSample:
		for k := 0; k < p.n && err == nil; k++ {
			b, err = p.flush(p.sampleRow(b, u, k))
		}
	case p.format == formatJSON:
		b, err = p.jsonRow(b, u)
	case p.format == formatCSV:
		b, err = p.csvRow(b, u)
	default:
		b = p.tableRow(b, u)
	}
	if err != nil {
		return err
	}
	return p.end(b)
}

func (p *printer) prefix(b []byte, u *client.Update) []byte {
	j := p.format == formatJSON
	for c, name := range prefixColumns {
		switch {
		case j && c == 0:
			b = append(b, `{"`...)
		case j:
			b = append(b, `,"`...)
		case c > 0:
			b = append(b, ',')
		}
		if j {
			b = append(append(b, name...), `":`...)
		}
		switch c {
		case 0:
			b = strconv.AppendUint(b, uint64(u.Counter), 10)
		case 1:
			b = strconv.AppendUint(b, u.HRT, 10)
		case 2:
			b = strconv.AppendUint(b, uint64(u.Lost), 10)
		case 3:
			b = strconv.AppendUint(b, uint64(u.Skipped), 10)
		default:
			b = strconv.AppendFloat(b, u.Silence.Seconds(), 'g', -1, 64)
		}
	}
	return b
}

func (p *printer) csvRow(b []byte, u *client.Update) ([]byte, error) {
	b = p.prefix(b, u)
	var err error
	for i := range p.cfg.Signals {
		for k := range p.cfg.Signals[i].Elements() {
			if b, err = p.flush(p.appendElem(append(b, ','), u, i, k, false)); err != nil {
				return b, err
			}
		}
	}
	return append(b, '\n'), nil
}

func (p *printer) jsonRow(b []byte, u *client.Update) ([]byte, error) {
	b = append(p.prefix(b, u), `,"signals":{`...)
	var err error
	for i := range p.cfg.Signals {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, p.keys[i]...)
		if b, err = p.appendJSONValue(b, u, i); err != nil {
			return b, err
		}
	}
	return append(b, "}}\n"...), nil
}

// appendJSONValue writes a scalar as a number, a vector as an array and a
// matrix as an array of rows.
func (p *printer) appendJSONValue(b []byte, u *client.Update, i int) ([]byte, error) {
	s := &p.cfg.Signals[i]
	if s.NumberOfDimensions == 0 {
		return p.appendElem(b, u, i, 0, true), nil
	}
	rows, cols := cli.Dims(s)
	if s.NumberOfDimensions == 2 {
		b = append(b, '[')
	}
	var err error
	for r := range rows {
		if r > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for c := range cols {
			if c > 0 {
				b = append(b, ',')
			}
			if b, err = p.flush(p.appendElem(b, u, i, r*cols+c, true)); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	}
	if s.NumberOfDimensions == 2 {
		b = append(b, ']')
	}
	return b, nil
}

// tableRow is the human form: "#counter hrt=.. lost=.. skipped=..
// [silence=..s]  name=value ...", long arrays shortened to their first four
// and last two elements.
func (p *printer) tableRow(b []byte, u *client.Update) []byte {
	b = append(b, '#')
	b = strconv.AppendUint(b, uint64(u.Counter), 10)
	b = append(b, " hrt="...)
	b = strconv.AppendUint(b, u.HRT, 10)
	b = append(b, " lost="...)
	b = strconv.AppendUint(b, uint64(u.Lost), 10)
	b = append(b, " skipped="...)
	b = strconv.AppendUint(b, uint64(u.Skipped), 10)
	if u.Silence > 0 {
		b = append(b, " silence="...)
		b = strconv.AppendFloat(b, u.Silence.Seconds(), 'f', 1, 64)
		b = append(b, 's')
	}
	for i := range p.cfg.Signals {
		b = append(b, ' ', ' ')
		b = cli.AppendEscaped(b, p.cfg.Signals[i].Name)
		b = append(b, '=')
		b = p.appendShort(b, u, i)
	}
	return append(b, '\n')
}

// appendShort appends the value of signal i, an array shortened to its
// first four and last two elements and its length.
func (p *printer) appendShort(b []byte, u *client.Update, i int) []byte {
	if p.cfg.Signals[i].NumberOfDimensions == 0 {
		return p.appendElem(b, u, i, 0, false)
	}
	n := p.cfg.Signals[i].Elements()
	b = append(b, '[')
	for k := range n {
		if n > 8 && k == 4 {
			b = append(b, " ..."...)
		}
		if n > 8 && k >= 4 && k < n-2 {
			continue
		}
		if k > 0 {
			b = append(b, ' ')
		}
		b = p.appendElem(b, u, i, k, false)
	}
	b = append(b, ']')
	if n > 8 {
		b = append(b, ' ', '(')
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, ')')
	}
	return b
}

// sampleRow is row k of an update in per-sample mode.
func (p *printer) sampleRow(b []byte, u *client.Update, k int) []byte {
	j := p.format == formatJSON
	b = p.prefix(b, u)
	if j {
		b = append(b, `,"k":`...)
	} else {
		b = append(b, ',')
	}
	b = strconv.AppendInt(b, int64(k), 10)
	for g, i := range p.groups {
		if j {
			b = cli.AppendJSONString(append(b, ','), p.tnames[g])
			b = append(b, ':')
		} else {
			b = append(b, ',')
		}
		b = appendFloat(b, u.TimeAt(i, min(k, p.cfg.Signals[i].Elements()-1)), 64, j)
	}
	if j {
		b = append(b, `,"signals":{`...)
	}
	for c, i := range p.cols {
		if j {
			if c > 0 {
				b = append(b, ',')
			}
			b = append(b, p.keys[i]...)
		} else {
			b = append(b, ',')
		}
		b = p.appendElem(b, u, i, min(k, p.cfg.Signals[i].Elements()-1), j)
	}
	if j {
		b = append(b, '}', '}')
	}
	return append(b, '\n')
}

// appendElem formats element k of signal i: integers exactly, raw floats in
// the shortest form of their own precision, dequantised values as float64.
// In JSON, NaN and the infinities are null. It decodes that element only.
func (p *printer) appendElem(b []byte, u *client.Update, i, k int, asJSON bool) []byte {
	switch p.kinds[i] {
	case kindInt:
		return strconv.AppendInt(b, intAt(u.Raw(i), p.cfg.WireType(i), k), 10)
	case kindUint:
		return strconv.AppendUint(b, uintAt(u.Raw(i), p.cfg.WireType(i), k), 10)
	case kindFloat32:
		return appendFloat(b, u.Float64At(i, k), 32, asJSON)
	}
	return appendFloat(b, u.Float64At(i, k), 64, asJSON)
}

// uintAt reads element k of unsigned wire type t from raw.
func uintAt(raw []byte, t datasource.Type, k int) uint64 {
	le := binary.LittleEndian
	switch t.Size() {
	case 1:
		return uint64(raw[k])
	case 2:
		return uint64(le.Uint16(raw[2*k:]))
	case 4:
		return uint64(le.Uint32(raw[4*k:]))
	}
	return le.Uint64(raw[8*k:])
}

// intAt reads element k of signed wire type t from raw.
func intAt(raw []byte, t datasource.Type, k int) int64 {
	v := uintAt(raw, t, k)
	switch t.Size() {
	case 1:
		return int64(int8(v))
	case 2:
		return int64(int16(v))
	case 4:
		return int64(int32(v))
	}
	return int64(v)
}

func appendFloat(b []byte, v float64, bits int, asJSON bool) []byte {
	if asJSON && (math.IsNaN(v) || math.IsInf(v, 0)) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, bits)
}
