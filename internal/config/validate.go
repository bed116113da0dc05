package config

import (
	"slices"
	"strconv"

	"github.com/streamerd/streamerd/datasource"
)

// validate checks the cross references between threads, GAMs and
// datasources, and resolves them to indexes.
func (d *decoder) validate() {
	f := d.f
	idx := func(kind string, i int) string { return kind + "[" + strconv.Itoa(i) + "]" }
	if len(f.Threads) == 0 {
		d.errs = append(d.errs, f.errKey("", "Threads", "at least one [[Threads]] table is required"))
	}
	unique := func(kind string, n int, name func(int) string) {
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
	unique("Threads", len(f.Threads), func(i int) string { return f.Threads[i].Name })
	unique("GAMs", len(f.GAMs), func(i int) string { return f.GAMs[i].Name })
	unique("DataSources", len(f.DataSources), func(i int) string { return f.DataSources[i].Name })
	if f.App.ScopeAddress != "" && !slices.ContainsFunc(f.DataSources, func(ds DataSource) bool { return ds.Class == ClassUDPStreamer }) {
		d.errf("App.ScopeAddress", "the scope shows UDPStreamer datasources, and there is none")
	}

	// Threads → GAMs; each GAM in exactly one thread.
	pos := make([]int, len(f.GAMs)) // position of each GAM inside its thread
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
	complete := len(f.Threads) > 0 // every thread lists its GAMs
	for ti := range f.Threads {
		if len(f.Threads[ti].GAMs) == 0 {
			complete = false
		}
	}
	for gi := range f.GAMs {
		if complete && f.GAMs[gi].Thread < 0 && f.GAMs[gi].Name != "" && f.GAM(f.GAMs[gi].Name) == gi {
			d.errf(idx("GAMs", gi)+".Name", "GAM %q is not run by any thread; list it in the GAMs of one [[Threads]]", f.GAMs[gi].Name)
		}
	}

	// Outputs → datasource signals; one writer per signal, one thread per datasource.
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
			if o.DataSource == "" {
				continue
			}
			di := f.DataSource(o.DataSource)
			if di < 0 {
				d.errf(op+".DataSource", "no datasource named %q", o.DataSource)
				continue
			}
			aliasKey := op + ".Alias"
			if _, ok := f.ix.pos[aliasKey]; !ok {
				aliasKey = op + ".Signal"
			}
			si := datasource.Index(f.DataSources[di].Signals, o.Alias)
			if si < 0 {
				if o.Alias != "" {
					d.errf(aliasKey, "datasource %q has no signal named %q", o.DataSource, o.Alias)
				}
				continue
			}
			o.DataSourceIndex, o.SignalIndex = di, si
			if sig := &f.DataSources[di].Signals[si]; g.Class == ClassTimer && (sig.Type != datasource.Uint32 || sig.Elements() != 1) {
				d.errf(aliasKey, "a Timer output is a uint32 scalar, but signal %q of datasource %q is %v[%d]", o.Alias, o.DataSource, sig.Type, sig.Elements())
			}
			ref := sigRef{di, si}
			if prev, dup := fedBy[ref]; dup {
				d.errf(aliasKey, "signal %q of datasource %q is already written by %s; a signal has at most one writer", o.Alias, o.DataSource, prev)
			} else {
				fedBy[ref] = "GAM " + strconv.Quote(g.Name)
			}
			if g.Thread >= 0 {
				switch w := writer[di]; {
				case w < 0:
					writer[di] = g.Thread
				case w != g.Thread:
					d.errf(op+".DataSource", "datasource %q is already written by thread %q; a datasource is synchronised by one thread", o.DataSource, f.Threads[w].Name)
				}
			}
		}
	}

	// IOGAM inputs → outputs of earlier GAMs of the same thread.
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
			oi := -1
			for k := range sg.Outputs {
				if sg.Outputs[k].Signal == in.Signal {
					oi = k
					break
				}
			}
			if oi < 0 {
				d.errf(p, "GAM %q has no output %q", in.GAM, in.Signal)
				continue
			}
			in.GAMIndex, in.OutputIndex = src, oi
			if ii >= len(g.Outputs) {
				continue
			}
			a, b := sg.Outputs[oi], g.Outputs[ii]
			if a.SignalIndex < 0 || b.SignalIndex < 0 {
				continue
			}
			sa := &f.DataSources[a.DataSourceIndex].Signals[a.SignalIndex]
			sb := &f.DataSources[b.DataSourceIndex].Signals[b.SignalIndex]
			if sa.Type != sb.Type || sa.Elements() != sb.Elements() {
				d.errf(idx("GAMs", gi)+"."+idx("Outputs", ii), "an IOGAM copies bytes: input %q is %v[%d], output signal %q is %v[%d]", in.GAM+"."+in.Signal, sa.Type, sa.Elements(), b.Alias, sb.Type, sb.Elements())
			}
		}
	}
}
