package datasource

import (
	"bytes"
	"strings"
	"testing"

	"github.com/VictoriaMetrics/metrics"
)

func TestMetricNames(t *testing.T) {
	set := metrics.NewSet()
	n := NewMetrics(set, "rd100s", `Enc "1"`)
	n.Counter("sent_total").Add(2)
	n.Counter("dropped_total", `reason="loss"`, `kind="x"`).Inc()
	n.Gauge("depth", func() float64 { return 3 })
	n.Gauge("destination_unreachable", nil).Set(1)
	var b bytes.Buffer
	set.WritePrometheus(&b)
	for _, want := range []string{
		`streamerd_rd100s_sent_total{datasource="Enc \"1\""} 2`,
		`streamerd_rd100s_dropped_total{datasource="Enc \"1\"",reason="loss",kind="x"} 1`,
		`streamerd_rd100s_depth{datasource="Enc \"1\""} 3`,
		`streamerd_rd100s_destination_unreachable{datasource="Enc \"1\""} 1`,
	} {
		if !strings.Contains(b.String(), want+"\n") {
			t.Errorf("missing %s in\n%s", want, b.String())
		}
	}
}
