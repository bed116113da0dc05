package marte2

import (
	"fmt"
	"strings"
)

// reached records what the value o of an imported signal says of the
// GAMs: those it passed through are folded, and the one it blames (if
// unfed) is not imported, for the first reason given.
func (im *importer) reached(o *origin) {
	for h := o.via; h != nil && !h.seen; h = h.prev { // hops are shared: each is walked once
		im.steps++
		h.seen = true
		h.gam.folded = true
	}
	if o.reason == nil {
		return
	}
	if g := o.blame; g != nil && im.blamed[g] == nil {
		if im.blamed == nil {
			im.blamed = map[*gamDef]*origin{}
		}
		im.blamed[g] = o
	}
}

// noteGAMs records what became of every GAM of the application: a GAM
// of a thread of the state has its thread set (expandThreads), one that
// makes a streamerd GAM says so in used (newGAM), and reached marked the
// others.
func (im *importer) noteGAMs(a *application, st *state) {
	for _, g := range a.gams {
		im.steps++
		used := im.used(g)
		if blame := im.blamed[g]; blame != nil {
			im.skip(g.node.Pos(), g.path.String(), g.class, "not imported: %s", blame.reason)
			if used == "" {
				continue
			}
		}
		switch {
		case used != "" && g.folded:
			im.maps(g.node.Pos(), g.path.String(), g.class, "%s; its copies are folded (the producer writes the imported datasource directly)", used)
		case used != "":
			im.maps(g.node.Pos(), g.path.String(), g.class, "%s", used)
		case g.folded:
			im.maps(g.node.Pos(), g.path.String(), g.class, "folded: an IOGAM copies bytes unchanged, so the producer of each value writes the imported datasource directly")
		case g.thread == nil:
			im.skip(g.node.Pos(), g.path.String(), g.class, "not run in state %s", shortName(st.name()))
		case !knownGAM(g.kind()):
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
		case ds.kind() == "LinuxTimer":
			if !paces[ds] {
				im.skip(ds.node.Pos(), ds.path.String(), ds.class, "paces no thread that writes an imported datasource")
			}
		case ds.kind() == "GAMDataSource":
			im.maps(ds.node.Pos(), ds.path.String(), ds.class, "folded: streamerd GAMs write their values straight into the imported datasources")
		default:
			im.skip(ds.node.Pos(), ds.path.String(), ds.class, "%s%s", sourceWhy(ds.kind()), written(ds))
		}
	}
}

// sourceWhy says why a datasource class is not imported.
func sourceWhy(kind string) string {
	switch {
	case kind == "TimingDataSource":
		return "streamerd publishes thread and GAM timings as Prometheus metrics (App.HTTPAddress)"
	case kind == "FileWriter" || kind == "FileReader":
		return "no datasource writes or reads signal files; record a stream with `record` and play it with a Replay datasource"
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
		if s.writer != nil {
			names = append(names, s.name())
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

// writeHeader prints the comment lines at the top of the TOML, from the
// application's position: what was approximated and what was not
// imported (the notes, sorted).
func (im *importer) writeHeader(w *writer, a *application, st *state) {
	at := a.obj.node.Pos()
	cs := w.beginComment(at, "")
	cs.WriteString("Imported from ")
	cs.WriteString(im.file)
	cs.WriteString(" by streamerd -import-marte2: ")
	a.obj.path.write(cs)
	cs.WriteString(" (")
	cs.WriteString(a.obj.class)
	cs.WriteString("), state ")
	cs.WriteString(st.name())
	cs.WriteByte('.')
	w.WriteByte('\n')
	w.comment(at, "", "Each table names the MARTe2 object it comes from. Check with: streamerd -check -config <this file>")
	for i, v := range [2]Verdict{Approximated, Skipped} {
		first := true
		for _, n := range im.notes {
			if n.Verdict != v {
				continue
			}
			if first {
				w.comment(at, "", "")
				w.comment(at, "", [2]string{"Approximated:", "Not imported:"}[i])
				first = false
			}
			cs := w.beginComment(at, "")
			cs.WriteString("  ")
			n.write(cs, im.file)
			w.WriteByte('\n')
		}
	}
}
