package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
	"github.com/streamerd/streamerd/datasource/udpstreamer/wire"
	"github.com/streamerd/streamerd/quant"
)

// Output formats.
const (
	formatTable = "table"
	formatCSV   = "csv"
	formatJSON  = "json"
	formatStats = "stats"
)

// writeConfigTable prints cfg as an aligned table: index, name, type, wire
// type, dimensions, unit, quantisation range and time mode.
func writeConfigTable(w io.Writer, server string, cfg *client.Config) error {
	fmt.Fprintf(w, "CONFIG from %s: %d signals, DATA payload %d bytes\n", server, len(cfg.Signals), cfg.PayloadSize)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tNAME\tTYPE\tWIRE\tDIMS\tUNIT\tRANGE\tTIME")
	for i := range cfg.Signals {
		s := &cfg.Signals[i]
		rng := "-"
		if s.Quant != quant.None {
			rng = "[" + fmtFloat(s.RangeMin) + ", " + fmtFloat(s.RangeMax) + "]"
		}
		unit := s.Unit
		if unit == "" {
			unit = "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%v\t%v\t%s\t%s\t%s\t%s\n", i, s.Name, s.Type, cfg.WireType(i), dims(s), unit, rng, timeDesc(cfg, s))
	}
	return tw.Flush()
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func dims(s *wire.SignalInfo) string {
	switch s.NumDimensions {
	case 0:
		return "scalar"
	case 1:
		return "[" + strconv.FormatUint(uint64(s.NumCols), 10) + "]"
	}
	return "[" + strconv.FormatUint(uint64(s.NumRows), 10) + "x" + strconv.FormatUint(uint64(s.NumCols), 10) + "]"
}

func timeDesc(cfg *client.Config, s *wire.SignalInfo) string {
	if !s.TimeMode.NeedsTimeSignal() {
		return s.TimeMode.String()
	}
	d := s.TimeMode.String() + "(" + cfg.Signals[s.TimeSignalIdx].Name
	if s.TimeMode.NeedsSamplingRate() {
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
	case s.Quant != quant.None || s.Type == datasource.Float64:
		return kindFloat
	case s.Type == datasource.Float32:
		return kindFloat32
	case s.Type.Signed():
		return kindInt
	}
	return kindUint
}

// printer formats updates of one Config into a reused buffer. Not safe for
// concurrent use.
type printer struct {
	cfg       *client.Config
	format    string
	perSample bool

	kinds []kind
	keys  [][]byte   // JSON: `"name":`, per signal
	ints  [][]int64  // per signed integer signal, the update's values
	uints [][]uint64 // per unsigned integer signal, the update's values
	buf   []byte

	// per-sample plan
	n       int   // samples per update: the largest element count
	cols    []int // signals printed: scalars and those of n elements, CONFIG order
	omitted []string
	groups  []int    // per time column, a signal whose Times it prints
	tnames  []string // per time column, its name
}

func newPrinter(cfg *client.Config, format string, perSample bool) *printer {
	n := len(cfg.Signals)
	p := &printer{cfg: cfg, format: format, perSample: perSample, ints: make([][]int64, n), uints: make([][]uint64, n)}
	for i := range cfg.Signals {
		p.kinds = append(p.kinds, kindOf(cfg, i))
		key, _ := json.Marshal(cfg.Signals[i].Name)
		p.keys = append(p.keys, append(key, ':'))
		p.n = max(p.n, cfg.Slots[i].Elements)
	}
	if !perSample {
		return p
	}
	type base struct {
		mode datasource.TimeMode
		idx  uint32
		rate float64
	}
	seen := map[base]bool{}
	for i := range cfg.Signals {
		s, el := &cfg.Signals[i], cfg.Slots[i].Elements
		if el != 1 && el != p.n {
			p.omitted = append(p.omitted, s.Name)
			continue
		}
		p.cols = append(p.cols, i)
		if el != p.n && p.n > 1 {
			continue // a scalar, repeated on every row
		}
		b := base{s.TimeMode, s.TimeSignalIdx, s.SamplingRate}
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
	return p
}

// header returns the CSV header line: counter, hrt_ns, lost, then every
// element as name, name[k] for a vector or name[r][c] for a matrix. With
// per-sample, k and the time columns come before the signals, each signal one
// column.
func (p *printer) header() []byte {
	b := []byte("counter,hrt_ns,lost")
	if p.perSample {
		b = append(b, ",k"...)
		for _, t := range p.tnames {
			b = appendCSVField(append(b, ','), t)
		}
		for _, i := range p.cols {
			b = appendCSVField(append(b, ','), p.cfg.Signals[i].Name)
		}
		return append(b, '\n')
	}
	for i := range p.cfg.Signals {
		s := &p.cfg.Signals[i]
		for k := range p.cfg.Slots[i].Elements {
			name := s.Name
			switch s.NumDimensions {
			case 1:
				name += "[" + strconv.Itoa(k) + "]"
			case 2:
				name += "[" + strconv.Itoa(k/int(s.NumCols)) + "][" + strconv.Itoa(k%int(s.NumCols)) + "]"
			}
			b = appendCSVField(append(b, ','), name)
		}
	}
	return append(b, '\n')
}

func appendCSVField(b []byte, f string) []byte {
	if !strings.ContainsAny(f, "\",\r\n") {
		return append(b, f...)
	}
	return append(append(b, '"'), strings.ReplaceAll(f, `"`, `""`)+`"`...)
}

// rows returns the lines of one update in the printer's format: one line, or
// with per-sample one line per sample. The bytes are the printer's buffer,
// valid until the next call.
func (p *printer) rows(u *client.Update) []byte {
	b := p.buf[:0]
	for i, k := range p.kinds {
		switch k {
		case kindInt:
			p.ints[i] = client.AppendValues(p.ints[i][:0], u, i)
		case kindUint:
			p.uints[i] = client.AppendValues(p.uints[i][:0], u, i)
		}
	}
	switch {
	case p.perSample:
		for k := range p.n {
			b = p.sampleRow(b, u, k)
		}
	case p.format == formatJSON:
		b = p.jsonRow(b, u)
	case p.format == formatCSV:
		b = p.csvRow(b, u)
	default:
		b = p.tableRow(b, u)
	}
	p.buf = b
	return b
}

func (p *printer) prefix(b []byte, u *client.Update) []byte {
	if p.format == formatJSON {
		b = append(b, `{"counter":`...)
		b = strconv.AppendUint(b, uint64(u.Counter), 10)
		b = append(b, `,"hrt_ns":`...)
		b = strconv.AppendUint(b, u.HRT, 10)
		b = append(b, `,"lost":`...)
		return strconv.AppendUint(b, uint64(u.Lost), 10)
	}
	b = strconv.AppendUint(b, uint64(u.Counter), 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, u.HRT, 10)
	b = append(b, ',')
	return strconv.AppendUint(b, uint64(u.Lost), 10)
}

func (p *printer) csvRow(b []byte, u *client.Update) []byte {
	b = p.prefix(b, u)
	for i := range p.cfg.Signals {
		for k := range p.cfg.Slots[i].Elements {
			b = p.appendElem(append(b, ','), u, i, k, false)
		}
	}
	return append(b, '\n')
}

func (p *printer) jsonRow(b []byte, u *client.Update) []byte {
	b = append(p.prefix(b, u), `,"signals":{`...)
	for i := range p.cfg.Signals {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, p.keys[i]...)
		b = p.appendJSONValue(b, u, i)
	}
	return append(b, "}}\n"...)
}

// appendJSONValue writes a scalar as a number, a vector as an array and a
// matrix as an array of rows.
func (p *printer) appendJSONValue(b []byte, u *client.Update, i int) []byte {
	s := &p.cfg.Signals[i]
	switch s.NumDimensions {
	case 0:
		return p.appendElem(b, u, i, 0, true)
	case 1:
		b = append(b, '[')
		for k := range int(s.NumCols) {
			if k > 0 {
				b = append(b, ',')
			}
			b = p.appendElem(b, u, i, k, true)
		}
		return append(b, ']')
	}
	b = append(b, '[')
	for r := range int(s.NumRows) {
		if r > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for c := range int(s.NumCols) {
			if c > 0 {
				b = append(b, ',')
			}
			b = p.appendElem(b, u, i, r*int(s.NumCols)+c, true)
		}
		b = append(b, ']')
	}
	return append(b, ']')
}

// tableRow is the human form: "#counter hrt=.. lost=..  name=value ...", long
// arrays shortened to their first four and last two elements.
func (p *printer) tableRow(b []byte, u *client.Update) []byte {
	b = append(b, '#')
	b = strconv.AppendUint(b, uint64(u.Counter), 10)
	b = append(b, " hrt="...)
	b = strconv.AppendUint(b, u.HRT, 10)
	b = append(b, " lost="...)
	b = strconv.AppendUint(b, uint64(u.Lost), 10)
	for i := range p.cfg.Signals {
		b = append(b, ' ', ' ')
		b = append(b, p.cfg.Signals[i].Name...)
		b = append(b, '=')
		n := p.cfg.Slots[i].Elements
		if p.cfg.Signals[i].NumDimensions == 0 {
			b = p.appendElem(b, u, i, 0, false)
			continue
		}
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
	}
	return append(b, '\n')
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
			b = append(b, ',', '"')
			b = append(b, p.tnames[g]...)
			b = append(b, '"', ':')
		} else {
			b = append(b, ',')
		}
		b = appendFloat(b, u.Times(i)[k], 64, j)
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
		e := k
		if p.cfg.Slots[i].Elements == 1 {
			e = 0
		}
		b = p.appendElem(b, u, i, e, j)
	}
	if j {
		b = append(b, '}', '}')
	}
	return append(b, '\n')
}

// appendElem formats element k of signal i: integers exactly, raw floats in
// the shortest form of their own precision, dequantised values as float64.
// In JSON, NaN and the infinities are null.
func (p *printer) appendElem(b []byte, u *client.Update, i, k int, asJSON bool) []byte {
	switch p.kinds[i] {
	case kindInt:
		return strconv.AppendInt(b, p.ints[i][k], 10)
	case kindUint:
		return strconv.AppendUint(b, p.uints[i][k], 10)
	case kindFloat32:
		return appendFloat(b, u.Float64s(i)[k], 32, asJSON)
	}
	return appendFloat(b, u.Float64s(i)[k], 64, asJSON)
}

func appendFloat(b []byte, v float64, bits int, asJSON bool) []byte {
	if asJSON && (math.IsNaN(v) || math.IsInf(v, 0)) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, bits)
}
