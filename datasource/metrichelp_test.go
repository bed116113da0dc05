package datasource_test

import (
	"bytes"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp"
	"github.com/streamerd/streamerd/datasource/rd100s"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/testenv"
)

// producersSet returns a set holding the metrics of one producer of each
// class.
func producersSet(t *testing.T) *metrics.Set {
	t.Helper()
	ms := metrics.NewSet()
	log := slog.New(slog.DiscardHandler)
	counter := []datasource.Signal{{Name: "Counter", Type: datasource.Uint32}}
	if _, err := udpstreamer.New(udpstreamer.Config{Name: "U", Address: "127.0.0.1", Signals: counter}, ms, log); err != nil {
		t.Fatal(err)
	}
	rc := rd100s.DefaultConfig()
	rc.Name, rc.DestHost, rc.AzimuthSignal, rc.ElevationSignal = "R", "127.0.0.1", "Az", "El"
	rc.Signals = []datasource.Signal{{Name: "Az", Type: datasource.Float64}, {Name: "El", Type: datasource.Float64}}
	if _, err := rd100s.New(rc, ms, log); err != nil {
		t.Fatal(err)
	}
	if _, err := flatudp.New(flatudp.Config{Name: "F", Address: "127.0.0.1", ExecutionMode: "RealTimeThread", Signals: counter}, ms, log); err != nil {
		t.Fatal(err)
	}
	return ms
}

// The table holds one line of help for exactly the families the producers
// register: none without help, none left over from a renamed metric.
func TestMetricHelpCoversEveryProducerFamily(t *testing.T) {
	ms := producersSet(t)
	families := map[string]bool{}
	for _, name := range ms.ListMetricNames() {
		f, _, _ := strings.Cut(name, "{")
		families[f] = true
	}
	for f := range families {
		if datasource.MetricHelpTable[f] == "" {
			t.Errorf("%s has no help", f)
		}
	}
	for f, h := range datasource.MetricHelpTable {
		if !families[f] {
			t.Errorf("help for %s, which no producer registers", f)
		}
		if h == "" || strings.ContainsAny(h, "\\\n") {
			t.Errorf("%s: help %q: want one line without backslashes", f, h)
		}
	}
}

// WritePrometheus fills every empty # HELP line of the producers' families,
// takes the caller's help first, and leaves other lines alone.
func TestWritePrometheusFillsHelp(t *testing.T) {
	metrics.ExposeMetadata(true)
	t.Cleanup(func() { metrics.ExposeMetadata(false) })
	ms := producersSet(t)
	ms.NewCounter(`app_requests_total{path="/"}`).Inc()
	ms.NewGauge("app_mood", func() float64 { return 1 })
	ms.RegisterMetricsWriter(func(w io.Writer) {
		io.WriteString(w, "# HELP app_written Already said.\n# TYPE app_written gauge\napp_written 1\n")
	})

	var b bytes.Buffer
	datasource.WritePrometheus(&b, ms.WritePrometheus, map[string]string{
		"app_requests_total":                     "Requests served.",
		"streamerd_udpstreamer_connects_total":   "Overridden.",
		"streamerd_udpstreamer_client_connected": "",
	})
	text := b.String()
	for _, want := range []string{
		"# HELP app_requests_total Requests served.\n# TYPE app_requests_total counter\napp_requests_total{path=\"/\"} 1\n",
		"# HELP app_mood\n# TYPE app_mood gauge\n",
		"# HELP app_written Already said.\n",
		"# HELP streamerd_udpstreamer_connects_total Overridden.\n",
		"# HELP streamerd_udpstreamer_client_connected " + datasource.MetricHelpTable["streamerd_udpstreamer_client_connected"] + "\n",
		"# HELP streamerd_flatudp_sent_bytes_total " + datasource.MetricHelpTable["streamerd_flatudp_sent_bytes_total"] + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q", want)
		}
	}
	// Only the HELP lines changed.
	var raw bytes.Buffer
	ms.WritePrometheus(&raw)
	isHelp := func(l string) bool { return strings.HasPrefix(l, "# HELP ") }
	got := slices.DeleteFunc(strings.Split(text, "\n"), isHelp)
	want := slices.DeleteFunc(strings.Split(raw.String(), "\n"), isHelp)
	if !slices.Equal(got, want) {
		t.Errorf("lines other than # HELP changed:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Nothing to write is no error.
	b.Reset()
	datasource.WritePrometheus(&b, nil, nil)
	if b.Len() != 0 {
		t.Errorf("nil write wrote %q", b.String())
	}
	// A body without a final newline loses nothing.
	b.Reset()
	datasource.WritePrometheus(&b, func(w io.Writer) { io.WriteString(w, "# HELP streamerd_flatudp_ring_depth") }, nil)
	if b.String() != "# HELP streamerd_flatudp_ring_depth "+datasource.MetricHelpTable["streamerd_flatudp_ring_depth"]+"\n" {
		t.Errorf("last line without newline: %q", b.String())
	}
}

// A scrape allocates nothing in WritePrometheus beyond what the writer
// itself does: the buffers come from the pool.
func TestWritePrometheusAllocatesNothing(t *testing.T) {
	testenv.SkipIfRace(t)
	var text bytes.Buffer
	metrics.ExposeMetadata(true)
	producersSet(t).WritePrometheus(&text)
	metrics.ExposeMetadata(false)
	write := func(w io.Writer) { w.Write(text.Bytes()) }
	help := map[string]string{"x": "y"}
	datasource.WritePrometheus(io.Discard, write, help)
	if n := testing.AllocsPerRun(100, func() { datasource.WritePrometheus(io.Discard, write, help) }); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
}
