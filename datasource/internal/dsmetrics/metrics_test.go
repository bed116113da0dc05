package dsmetrics

import (
	"bytes"
	"strings"
	"testing"

	"github.com/VictoriaMetrics/metrics"
)

func TestMetricNames(t *testing.T) {
	set := metrics.NewSet()
	n := New(set, "rd100s", `Enc "1"`)
	n.Counter("sent_total").Add(2)
	dropped := n.Family("dropped_total", "reason", "loss", `a "b"`)
	dropped[0].Inc()
	dropped[1].Add(3)
	n.Gauge("depth", func() float64 { return 3 })
	n.Gauge("destination_unreachable", nil).Set(1)
	var b bytes.Buffer
	set.WritePrometheus(&b)
	for _, want := range []string{
		`streamerd_rd100s_sent_total{datasource="Enc \"1\""} 2`,
		`streamerd_rd100s_dropped_total{datasource="Enc \"1\"",reason="loss"} 1`,
		`streamerd_rd100s_dropped_total{datasource="Enc \"1\"",reason="a \"b\""} 3`,
		`streamerd_rd100s_depth{datasource="Enc \"1\""} 3`,
		`streamerd_rd100s_destination_unreachable{datasource="Enc \"1\""} 1`,
	} {
		if !strings.Contains(b.String(), want+"\n") {
			t.Errorf("missing %s in\n%s", want, b.String())
		}
	}
}

func TestUnregisterAndRegisterAgain(t *testing.T) {
	set := metrics.NewSet()
	a := New(set, "udpstreamer", "S")
	a.Counter("synchronise_total").Inc()
	a.Gauge("client_connected", nil)
	if a.Err() != nil {
		t.Fatal(a.Err())
	}
	b := New(set, "udpstreamer", "S")
	b.Counter("synchronise_total")
	if err := b.Err(); err == nil || !strings.Contains(err.Error(), `streamerd_udpstreamer_synchronise_total{datasource="S"} is already registered`) {
		t.Errorf("same name twice: %v", err)
	}
	b.Gauge("client_connected", nil).Set(1) // counts for nobody, no panic
	other := New(set, "udpstreamer", "T")
	other.Counter("synchronise_total")
	if other.Err() != nil {
		t.Errorf("another name: %v", other.Err())
	}
	a.Unregister()
	a.Unregister()
	if got := len(set.ListMetricNames()); got != 1 {
		t.Errorf("%d metrics left, want T's 1: %v", got, set.ListMetricNames())
	}
	c := New(set, "udpstreamer", "S")
	c.Counter("synchronise_total")
	if c.Err() != nil {
		t.Errorf("after Unregister: %v", c.Err())
	}
	if New(nil, "x", "y").Set() == nil {
		t.Error("nil set not replaced")
	}
	bad := New(set, "udpstreamer", "S")
	bad.Counter("no spaces allowed")
	if bad.Err() == nil {
		t.Error("invalid name registered")
	}
}
