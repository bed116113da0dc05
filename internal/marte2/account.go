package marte2

import (
	"fmt"
	"strings"
)

// noteGAMs records what became of every GAM of the application.
func (im *importer) noteGAMs(a *application, st *state, used map[*gamDef]string) {
	inState := map[*gamDef]bool{}
	for _, t := range st.threads {
		for _, g := range t.gams {
			im.steps++
			inState[g] = true
		}
	}
	folded := map[*gamDef]bool{}
	seen := map[*hop]bool{} // hops are shared: each is walked once
	blamed := map[*gamDef]string{}
	for _, o := range append(append([]*origin(nil), im.routes...), im.unfed...) {
		for h := o.via; h != nil && !seen[h]; h = h.prev {
			im.steps++
			seen[h] = true
			folded[h.gam] = true
		}
		if o.blame != nil && blamed[o.blame] == "" {
			blamed[o.blame] = o.why
		}
	}
	for _, g := range a.gams {
		im.steps++
		if blamed[g] != "" {
			im.skip(g.node.Pos(), g.path.String(), g.class, "not imported: %s", blamed[g])
			if used[g] == "" {
				continue
			}
		}
		switch {
		case used[g] != "" && folded[g]:
			im.maps(g.node.Pos(), g.path.String(), g.class, "%s; its copies are folded (the producer writes the imported datasource directly)", used[g])
		case used[g] != "":
			im.maps(g.node.Pos(), g.path.String(), g.class, "%s", used[g])
		case folded[g]:
			im.maps(g.node.Pos(), g.path.String(), g.class, "folded: an IOGAM copies bytes unchanged, so the producer of each value writes the imported datasource directly")
		case !inState[g]:
			im.skip(g.node.Pos(), g.path.String(), g.class, "not run in state %s", shortName(st.name))
		case !knownGAM(g.kind):
			im.skip(g.node.Pos(), g.path.String(), g.class, "no streamerd equivalent; nothing it writes reaches an imported datasource")
		default:
			im.skip(g.node.Pos(), g.path.String(), g.class, "nothing it writes reaches an imported datasource")
		}
	}
}

func knownGAM(kind string) bool {
	switch kind {
	case "IOGAM", "WaveformSin", "WaveformChirp", "ConstantGAM":
		return true
	}
	return false
}

// noteSources records what became of every datasource.
func (im *importer) noteSources(a *application, sinks []*sink, threads []*threadState) {
	paces := map[*dataSource]bool{}
	for _, sk := range sinks {
		paces[sk.thread.timer] = true
	}
	for _, ds := range a.sources {
		switch {
		case im.mapsTo(ds) != "":
			// noted by findSinks or the params
		case ds.kind == "LinuxTimer":
			if !paces[ds] {
				im.skip(ds.node.Pos(), ds.path.String(), ds.class, "paces no thread that writes an imported datasource")
			}
		case ds.kind == "GAMDataSource":
			im.maps(ds.node.Pos(), ds.path.String(), ds.class, "folded: streamerd GAMs write their values straight into the imported datasources")
		default:
			im.skip(ds.node.Pos(), ds.path.String(), ds.class, "%s%s", sourceWhy(ds.kind), written(ds))
		}
	}
}

// sourceWhy says why a datasource class is not imported.
func sourceWhy(kind string) string {
	switch {
	case kind == "TimingDataSource":
		return "streamerd publishes thread and GAM timings as Prometheus metrics (App.HTTPAddress)"
	case kind == "FileWriter" || kind == "FileReader":
		return "streamerd reads and writes no files"
	case kind == "LoggerDataSource":
		return "streamerd does not log signal values"
	case strings.HasPrefix(kind, "EPICS"):
		return "streamerd has no EPICS interface"
	case kind == "RealTimeThreadSynchronisation" || kind == "RealTimeThreadAsyncBridge":
		return "streamerd threads exchange no data with each other"
	}
	return "no streamerd equivalent"
}

// written lists the signals GAMs write into ds, for a skipped datasource.
func written(ds *dataSource) string {
	var names []string
	for _, s := range ds.signals {
		for _, r := range s.refs {
			if !r.input {
				names = append(names, s.name)
				break
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	if len(names) > 8 {
		names = append(names[:8], fmt.Sprintf("and %d more", len(names)-8))
	}
	return "; not written: " + strings.Join(names, ", ")
}

// noteObjects records the application's scheduler and other objects.
func (im *importer) noteObjects(a *application) {
	if s := a.scheduler; s != nil {
		im.maps(s.node.Pos(), s.path.String(), s.class, "streamerd's RT threads run their GAMs in order, then the brokers")
	}
	for _, o := range a.others {
		im.skip(o.node.Pos(), o.path.String(), o.class, "not part of the data path streamerd imports")
	}
}

// header returns the comment lines at the top of the TOML.
func (im *importer) header(a *application, st *state) []string {
	h := []string{
		fmt.Sprintf("Imported from %s by streamerd -import-marte2: %s (%s), state %s.", im.file, a.obj.path, a.obj.class, st.name),
		"Each table names the MARTe2 object it comes from. Check with: streamerd -check -config <this file>",
	}
	var skipped, approx []string
	sortNotes(im.notes)
	for _, n := range im.notes {
		switch n.Verdict {
		case Skipped:
			skipped = append(skipped, "  "+n.Format(im.file))
		case Approximated:
			approx = append(approx, "  "+n.Format(im.file))
		}
	}
	if len(approx) > 0 {
		h = append(h, "", "Approximated:")
		h = append(h, approx...)
	}
	if len(skipped) > 0 {
		h = append(h, "", "Not imported:")
		h = append(h, skipped...)
	}
	return h
}
