package config

import (
	"net"
	"slices"
	"strconv"

	"github.com/streamerd/streamerd/datasource"
)

// validate checks the cross references between threads, GAMs and
// datasources, and resolves them to indexes.
func (d *decoder) validate() {
	f := d.f
	switch {
	case len(f.Threads) > 0:
	case !onlyReplays(f):
		d.errs = append(d.errs, f.errKey("", "Threads", "at least one [[Threads]] table is required (a file whose datasources are all Replay needs none)"))
	default:
		// The first RT thread applies these; a file of replays has none.
		if f.App.LockMemory {
			d.errf("App.LockMemory", "applies at the start of the first RT thread, and the file has none")
		}
		if f.App.GCPolicy == "off" {
			d.errf("App.GCPolicy", "\"off\" applies at the start of the first RT thread, and the file has none")
		}
	}
	d.unique("Threads", len(f.Threads), func(i int) string { return f.Threads[i].Name })
	d.unique("GAMs", len(f.GAMs), func(i int) string { return f.GAMs[i].Name })
	d.unique("DataSources", len(f.DataSources), func(i int) string { return f.DataSources[i].Name })
	if f.App.ScopeAddress != "" && !slices.ContainsFunc(f.DataSources, func(ds DataSource) bool { return ds.Class == ClassUDPStreamer || ds.Class == ClassReplay }) {
		d.errf("App.ScopeAddress", "the scope shows UDPStreamer and Replay datasources, and there is none")
	}
	d.checkPorts()
	pos := d.resolveThreads()
	d.checkEveryGAMRuns()
	d.resolveOutputs()
	d.resolveInputs(pos)
}

// checkPorts refuses two sockets of the file that cannot both bind: two
// datasources listening on one UDP port of one address (an address left
// empty binds them all), and the scope on HTTP's own address. The start
// would fail on them; -check says so first, at the second one's key.
func (d *decoder) checkPorts() {
	f := d.f
	type socket struct {
		path, what, addr string
		port             int
	}
	var udp []socket
	for i := range f.DataSources {
		ds := &f.DataSources[i]
		path := idx("DataSources", i)
		switch {
		case ds.UDPStreamer != nil:
			udp = append(udp, socket{path + ".Port", ds.Name, ds.UDPStreamer.Address, ds.UDPStreamer.Port})
		case ds.Replay != nil:
			udp = append(udp, socket{path + ".Port", ds.Name, ds.Replay.Server.Address, ds.Replay.Server.Port})
		case ds.RD100S != nil && ds.RD100S.SrcPort != 0:
			udp = append(udp, socket{path + ".src_port", ds.Name, "", ds.RD100S.SrcPort})
		}
	}
	overlap := func(a, b string) bool {
		ua, ub := a == "" || a == "0.0.0.0" || a == "::", b == "" || b == "0.0.0.0" || b == "::"
		return ua || ub || a == b
	}
	for j := range udp {
		for i := range j {
			if a, b := udp[i], udp[j]; a.port == b.port && overlap(a.addr, b.addr) && !d.bad[a.path] && !d.bad[b.path] {
				d.errf(b.path, "UDP port %d is datasource %q's too, on an address that overlaps: the second socket cannot bind it", b.port, a.what)
				break
			}
		}
	}
	if h, s := f.App.HTTPAddress, f.App.ScopeAddress; h != "" && s != "" && !d.bad["App.HTTPAddress"] && !d.bad["App.ScopeAddress"] {
		hh, hp, _ := net.SplitHostPort(h)
		sh, sp, _ := net.SplitHostPort(s)
		if hp == sp && hp != "0" && overlap(hh, sh) {
			d.errf("App.ScopeAddress", "is on HTTPAddress's port %s: the scope needs a port of its own", sp)
		}
	}
}

// onlyReplays reports whether f has datasources and every one is a
// Replay, which its own pacing thread synchronises: no RT thread is needed.
func onlyReplays(f *File) bool {
	for i := range f.DataSources {
		if f.DataSources[i].Class != ClassReplay {
			return false
		}
	}
	return len(f.DataSources) > 0
}

// idx names element i of an array of tables: "GAMs[2]".
func idx(kind string, i int) string { return kind + "[" + strconv.Itoa(i) + "]" }

// unique reports every name of the array kind that an earlier element
// already has.
func (d *decoder) unique(kind string, n int, name func(int) string) {
	seen := map[string]int{}
	for i := 0; i < n; i++ {
		nm := name(i)
		if nm == "" {
			continue
		}
		if j, dup := seen[nm]; dup {
			d.errf(idx(kind, i)+".Name", "duplicates %s; names must be unique", idx(kind, j))
			continue
		}
		seen[nm] = i
	}
}

// resolveThreads resolves each thread's GAM names, placing every GAM in
// exactly one thread, and returns each GAM's position inside its thread.
func (d *decoder) resolveThreads() (pos []int) {
	f := d.f
	pos = make([]int, len(f.GAMs))
	for ti := range f.Threads {
		th := &f.Threads[ti]
		for k, name := range th.GAMs {
			p := idx("Threads", ti) + ".GAMs" + "[" + strconv.Itoa(k) + "]"
			gi := f.GAM(name)
			switch {
			case gi < 0:
				d.errf(p, "no GAM named %q", name)
			case f.GAMs[gi].Thread == ti:
				d.errf(p, "GAM %q is listed twice in this thread", name)
			case f.GAMs[gi].Thread >= 0:
				d.errf(p, "GAM %q already runs in thread %q; each GAM runs in exactly one thread", name, f.Threads[f.GAMs[gi].Thread].Name)
			default:
				f.GAMs[gi].Thread = ti
				pos[gi] = k
			}
			th.GAMIndex = append(th.GAMIndex, gi)
		}
	}
	return pos
}

// checkEveryGAMRuns reports a GAM no thread runs, once every thread lists
// its GAMs (otherwise the missing list is the error).
func (d *decoder) checkEveryGAMRuns() {
	f := d.f
	if len(f.Threads) == 0 {
		return
	}
	for ti := range f.Threads {
		if len(f.Threads[ti].GAMs) == 0 {
			return
		}
	}
	for gi := range f.GAMs {
		if g := &f.GAMs[gi]; g.Thread < 0 && g.Name != "" && f.GAM(g.Name) == gi {
			d.errf(idx("GAMs", gi)+".Name", "GAM %q is not run by any thread; list it in the GAMs of one [[Threads]]", g.Name)
		}
	}
}

// resolveOutputs resolves every GAM output to its datasource signal: one
// writer per signal, one thread per datasource.
func (d *decoder) resolveOutputs() {
	f := d.f
	type sigRef struct{ ds, sig int }
	fedBy := map[sigRef]string{}
	writer := make([]int, len(f.DataSources)) // thread writing each datasource, -1 none
	for i := range writer {
		writer[i] = -1
	}
	for gi := range f.GAMs {
		g := &f.GAMs[gi]
		for oi := range g.Outputs {
			o := &g.Outputs[oi]
			op := idx("GAMs", gi) + "." + idx("Outputs", oi)
			key := d.resolveOutput(g, o, op)
			if o.SignalIndex < 0 {
				continue
			}
			ref := sigRef{o.DataSourceIndex, o.SignalIndex}
			if prev, dup := fedBy[ref]; dup {
				d.errf(key, "signal %q of datasource %q is already written by %s; a signal has at most one writer", o.Alias, o.DataSource, prev)
			} else {
				fedBy[ref] = "GAM " + quote(g.Name)
			}
			if g.Thread >= 0 {
				switch w := writer[o.DataSourceIndex]; {
				case w < 0:
					writer[o.DataSourceIndex] = g.Thread
				case w != g.Thread:
					d.errf(op+".DataSource", "datasource %q is already written by thread %q; a datasource is synchronised by one thread", o.DataSource, f.Threads[w].Name)
				}
			}
		}
	}
}

// signalIndex returns the index of the signal of datasource di named
// name.
func (d *decoder) signalIndex(di int, name string) (int, bool) {
	m, ok := d.signals[di]
	if !ok {
		sigs := d.f.DataSources[di].Signals
		m = make(map[string]int, len(sigs))
		for i := range sigs {
			if _, dup := m[sigs[i].Name]; !dup {
				m[sigs[i].Name] = i
			}
		}
		if d.signals == nil {
			d.signals = map[int]map[string]int{}
		}
		d.signals[di] = m
	}
	i, ok := m[name]
	return i, ok
}

// resolveOutput finds the datasource signal output o of g (at path op)
// writes and returns the path of the key that names it.
func (d *decoder) resolveOutput(g *GAM, o *Output, op string) (key string) {
	f := d.f
	key = op + ".Alias"
	if _, ok := f.ix.pos[key]; !ok {
		key = op + ".Signal"
	}
	if o.DataSource == "" {
		return key
	}
	di := f.DataSource(o.DataSource)
	if di < 0 {
		d.errf(op+".DataSource", "no datasource named %q", o.DataSource)
		return key
	}
	if f.DataSources[di].Class == ClassReplay {
		d.errf(op+".DataSource", "datasource %q is a Replay: it serves the signals of its recording, which no GAM writes", o.DataSource)
		return key
	}
	si, ok := d.signalIndex(di, o.Alias)
	if !ok {
		if o.Alias != "" {
			d.errf(key, "datasource %q has no signal named %q", o.DataSource, o.Alias)
		}
		return key
	}
	o.DataSourceIndex, o.SignalIndex = di, si
	switch sig := &f.DataSources[di].Signals[si]; {
	case g.Class == ClassTimer && (sig.Type != datasource.Uint32 || sig.Elements() != 1):
		d.errf(key, "a Timer output is a uint32 scalar, but signal %q of datasource %q is %v[%d]", o.Alias, o.DataSource, sig.Type, sig.Elements())
	case g.Class == ClassWaveform && sig.Type == datasource.Char8:
		d.errf(key, "signal %q of datasource %q is char8[%d], text: a Waveform writes numbers (a Text GAM writes text)", o.Alias, o.DataSource, sig.Elements())
	case g.Class == ClassText && sig.Type != datasource.Char8:
		d.errf(key, "a Text output is a char8 array, but signal %q of datasource %q is %v[%d]", o.Alias, o.DataSource, sig.Type, sig.Elements())
	case g.Class == ClassText && len(g.Text) >= sig.Elements():
		d.errf(key, "the Text of %d bytes does not fit signal %q of datasource %q, a char8[%d], with the NUL that ends it (at most %d bytes)", len(g.Text), o.Alias, o.DataSource, sig.Elements(), sig.Elements()-1)
	}
	return key
}

// resolveInputs resolves every IOGAM input to an output of a GAM that runs
// earlier in the same thread (pos: each GAM's place in its thread), whose
// signal has the type and size of the one the IOGAM writes.
func (d *decoder) resolveInputs(pos []int) {
	f := d.f
	for gi := range f.GAMs {
		g := &f.GAMs[gi]
		for ii := range g.Inputs {
			in := &g.Inputs[ii]
			p := idx("GAMs", gi) + ".Inputs[" + strconv.Itoa(ii) + "]"
			if in.GAM == "" || in.Signal == "" {
				continue
			}
			src := f.GAM(in.GAM)
			if src < 0 {
				d.errf(p, "no GAM named %q", in.GAM)
				continue
			}
			sg := &f.GAMs[src]
			if g.Thread >= 0 && (sg.Thread != g.Thread || pos[src] >= pos[gi]) {
				d.errf(p, "GAM %q must run earlier in the same thread as %q", in.GAM, g.Name)
				continue
			}
			oi := slices.IndexFunc(sg.Outputs, func(o Output) bool { return o.Signal == in.Signal })
			if oi < 0 {
				d.errf(p, "GAM %q has no output %q", in.GAM, in.Signal)
				continue
			}
			in.GAMIndex, in.OutputIndex = src, oi
			if ii < len(g.Outputs) {
				d.checkCopy(gi, ii, sg.Outputs[oi])
			}
		}
	}
}

// checkCopy reports IOGAM gi's output ii when its signal differs in type or
// size from the signal of the output a it copies.
func (d *decoder) checkCopy(gi, ii int, a Output) {
	f := d.f
	g := &f.GAMs[gi]
	in, b := g.Inputs[ii], g.Outputs[ii]
	if a.SignalIndex < 0 || b.SignalIndex < 0 {
		return
	}
	sa := &f.DataSources[a.DataSourceIndex].Signals[a.SignalIndex]
	sb := &f.DataSources[b.DataSourceIndex].Signals[b.SignalIndex]
	if sa.Type != sb.Type || sa.Elements() != sb.Elements() {
		d.errf(idx("GAMs", gi)+"."+idx("Outputs", ii), "an IOGAM copies bytes: input %q is %v[%d], output signal %q is %v[%d]", in.GAM+"."+in.Signal, sa.Type, sa.Elements(), b.Alias, sb.Type, sb.Elements())
	}
}
