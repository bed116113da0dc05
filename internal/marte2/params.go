package marte2

import (
	"fmt"
	"math"
	"net/netip"
	"slices"
	"sort"
	"strings"

	"github.com/streamerd/streamerd/datasource/flatudp"
	"github.com/streamerd/streamerd/rt/cpu"
)

// param reads the parameters of one object for a streamerd table: each
// conversion error is positioned at the value. It is a value, kept on the
// stack: one is made for each declared signal.
type param struct {
	im    *importer
	n     Node
	path  func() string // the object's path, for messages
	used  [24]string    // keys read or known, so the rest can be listed
	nused int
	more  []string // beyond used
}

func newParam(im *importer, n Node, path func() string, known ...string) param {
	p := param{im: im, n: n, path: path}
	for _, k := range known {
		p.use(k)
	}
	return p
}

// use records that key was read.
func (p *param) use(key string) {
	if p.isUsed(key) {
		return
	}
	if p.nused < len(p.used) {
		p.used[p.nused] = key
		p.nused++
		return
	}
	p.more = append(p.more, key)
}

func (p *param) isUsed(key string) bool {
	return slices.Contains(p.used[:p.nused], key) || slices.Contains(p.more, key)
}

func (p *param) leaf(key string) Node {
	p.use(key)
	return p.n.Leaf(key)
}

func (p *param) str(key string) (string, bool) {
	l := p.leaf(key)
	if l.IsZero() {
		return "", false
	}
	s, ok := l.Value().Text()
	if !ok {
		p.im.errorf(l.Value().Pos(), "%s.%s: expected a single value, got %v", p.path(), key, l.Value())
	}
	return s, ok
}

func (p *param) float(key string) (float64, bool) {
	s, ok := p.str(key)
	if !ok {
		return 0, false
	}
	f, ok := parseFloat(s)
	if !ok {
		p.im.errorf(p.n.Leaf(key).Value().Pos(), "%s.%s: expected a number, got %q", p.path(), key, s)
	}
	return f, ok
}

func (p *param) uint(key string, max uint64) (uint64, bool) {
	s, ok := p.str(key)
	if !ok {
		return 0, false
	}
	u, ok := parseUint(s, 64)
	if !ok || u > max {
		p.im.errorf(p.n.Leaf(key).Value().Pos(), "%s.%s: expected an integer 0..%d, got %q", p.path(), key, max, s)
		return 0, false
	}
	return u, true
}

// pos returns the position of the value of key (present).
func (p *param) pos(key string) Pos { return p.n.Leaf(key).Value().Pos() }

// copyStr, copyFloat, copyUint and copyMask copy a present key into t.
func (p *param) copyStr(t *table, key, as string) {
	if s, ok := p.str(key); ok {
		t.setAt(p.pos(key), as, tomlString(s), "")
	}
}

func (p *param) copyFloat(t *table, key string) {
	if f, ok := p.float(key); ok {
		t.setAt(p.pos(key), key, tomlFloat(f), "")
	}
}

func (p *param) copyUint(t *table, key string, max uint64) {
	if u, ok := p.uint(key, max); ok {
		t.setAt(p.pos(key), key, tomlInt(int64(u)), "")
	}
}

func (p *param) copyMask(t *table, key, as string) {
	if u, ok := p.uint(key, math.MaxUint64); ok {
		t.setAt(p.pos(key), as, tomlString(fmt.Sprintf("0x%x", u)), "")
	}
}

// rest returns the keys of n that were not read, sorted.
func (p *param) rest() []string {
	var out []string
	for c := range p.n.Children() {
		if !p.isUsed(c.Name()) {
			out = append(out, c.Name())
			p.use(c.Name())
		}
	}
	sort.Strings(out)
	return out
}

// restNote returns ", ignoring X and Y (no effect in MARTe2)" for the keys
// not read, or "".
func (p *param) restNote(why string) string {
	r := p.rest()
	if len(r) == 0 {
		return ""
	}
	return "; ignored: " + strings.Join(r, ", ") + " (" + why + ")"
}

// flatParams maps the parameters of a UDPSender onto FlatUDP.
func (im *importer) flatParams(ds *dataSource, t *table) {
	p := newParam(im, ds.node, ds.path.String, "Class", "Signals")
	if a, ok := p.str("Address"); ok {
		t.setAt(p.pos("Address"), "Address", tomlString(im.address(&p, a)), "")
	} else {
		im.errorf(ds.node.Pos(), "%s: no Address (MARTe2's UDPSender needs one)", ds.path)
	}
	port, portAt := uint64(flatudp.DefaultPort), ds.node.Pos()
	if u, ok := p.uint("Port", 65535); ok {
		port, portAt = u, p.pos("Port")
	}
	t.setAt(portAt, "Port", tomlInt(int64(port)), "")
	mode, modeAt := "IndependentThread", ds.node.Pos()
	if m, ok := p.str("ExecutionMode"); ok {
		modeAt = p.pos("ExecutionMode")
		if m != "IndependentThread" && m != "RealTimeThread" {
			im.errorf(ds.node.Leaf("ExecutionMode").Value().Pos(), "%s.ExecutionMode: expected IndependentThread or RealTimeThread, got %q", ds.path, m)
		}
		mode = m
	}
	t.setAt(modeAt, "ExecutionMode", tomlString(mode), "")
	var ignored []string
	if mode == "IndependentThread" {
		pre, okPre := p.uint("NumberOfPreTriggers", 1<<20)
		post, okPost := p.uint("NumberOfPostTriggers", 1<<20)
		if !okPre || !okPost {
			im.errorf(ds.node.Pos(), "%s: IndependentThread needs NumberOfPreTriggers and NumberOfPostTriggers (MARTe2 refuses it without them)", ds.path)
		}
		buffers := uint64(1) // MARTe2's default
		if u, ok := p.uint("NumberOfBuffers", 1<<20); ok {
			buffers = u
		}
		if buffers != 1 {
			im.approx(ds.node.Leaf("NumberOfBuffers").Pos(), ds.path.show("NumberOfBuffers"), "", "MARTe2's UDPSender refuses NumberOfBuffers other than 1 in IndependentThread mode (its trigger broker needs one memory buffer); streamerd keeps a ring of %d cycles for the trigger window", buffers)
		}
		if pre+post >= buffers {
			im.errorf(ds.node.Pos(), "%s: NumberOfPreTriggers + NumberOfPostTriggers (%d) must be less than NumberOfBuffers (%d, MARTe2's default 1 when absent)", ds.path, pre+post, buffers)
		}
		t.set("NumberOfPreTriggers", tomlInt(int64(pre)), "")
		t.set("NumberOfPostTriggers", tomlInt(int64(post)), "")
		t.set("NumberOfBuffers", tomlInt(int64(buffers)), "")
		p.copyMask(t, "CPUMask", "CPUMask")
	} else {
		for _, k := range []string{"NumberOfPreTriggers", "NumberOfPostTriggers", "CPUMask", "NumberOfBuffers"} {
			if !p.leaf(k).IsZero() {
				ignored = append(ignored, k)
			}
		}
	}
	p.copyUint(t, "StackSize", math.MaxInt32)
	text := "→ [[DataSources]] " + ds.name() + " (FlatUDP): the same datagrams, signals packed in this order"
	if len(ignored) > 0 {
		text += "; " + strings.Join(ignored, ", ") + " ignored in RealTimeThread mode, as MARTe2 does"
	}
	im.maps(ds.node.Pos(), ds.path.String(), ds.class, "%s%s", text, p.restNote("not UDPSender parameters"))
}

// address returns the IP literal for a UDPSender Address.
func (im *importer) address(p *param, a string) string {
	if _, err := netip.ParseAddr(a); err == nil {
		return a
	}
	pos := p.n.Leaf("Address").Value().Pos()
	if a == "localhost" {
		im.approx(pos, p.path()+".Address", "", "\"localhost\" becomes 127.0.0.1: streamerd sends to an IP address")
		return "127.0.0.1"
	}
	im.errorf(pos, "%s.Address: %q is not an IP address; streamerd sends to an IP literal", p.path(), a)
	return a
}

// udpsParams copies the parameters of a UDPStreamer datasource (the names
// of the UDPStreamer datasource documentation).
func (im *importer) udpsParams(ds *dataSource, t *table) {
	p := newParam(im, ds.node, ds.path.String, "Class", "Signals")
	p.copyUint(t, "Port", 65535)
	p.copyUint(t, "MaxPayloadSize", 65507)
	p.copyStr(t, "Address", "Address")
	if l := p.leaf("AllowedClients"); !l.IsZero() {
		var cs []string
		for it := range l.Value().All() {
			cs = append(cs, it.Text)
		}
		t.setAt(l.Value().Pos(), "AllowedClients", tomlStrings(cs), "")
	}
	p.copyMask(t, "CPUMask", "CPUMask")
	p.copyUint(t, "Priority", cpu.MaxPriority)
	p.copyUint(t, "StackSize", math.MaxInt32)
	im.maps(ds.node.Pos(), ds.path.String(), ds.class, "→ [[DataSources]] %s (UDPStreamer)%s", ds.name(), p.restNote("not UDPStreamer parameters"))
}

// signalParams copies the per-signal parameters of a declared signal.
func (im *importer) signalParams(class string, sig *dsSignal, t *table) {
	p := newParam(im, sig.node(), sig.path, "Type", "NumberOfElements", "NumberOfDimensions", "Rows", "Cols")
	p.copyStr(t, "Unit", "Unit")
	if class == "UDPStreamer" {
		p.copyFloat(t, "RangeMin")
		p.copyFloat(t, "RangeMax")
		p.copyStr(t, "QuantizedType", "QuantizedType")
		p.copyStr(t, "TimeMode", "TimeMode")
		p.copyStr(t, "TimeSignal", "TimeSignal")
		p.copyFloat(t, "SamplingRate")
	}
	if r := p.rest(); len(r) > 0 {
		t.comments = append(t.comments, "ignored: "+strings.Join(r, ", "))
	}
}
