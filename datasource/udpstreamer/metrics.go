package udpstreamer

import (
	"fmt"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource/internal/dsmetrics"
	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
)

// streamerMetrics holds the counters of one Streamer. Counters and gauges
// are atomic and safe from the RT thread; nothing here is a histogram.
type streamerMetrics struct {
	synchronised, skipped, lockTimeouts, noClient *metrics.Counter
	wakeups                                       *metrics.Counter
	updates, fragments, bytes, sendErrors         *metrics.Counter
	configSendErrors                              *metrics.Counter
	configsSent, configFragments                  *metrics.Counter
	connects, replaced, disconnects               *metrics.Counter
	strangerDisconnects, refused, acks            *metrics.Counter
	controlDropped, recvErrors, nanInputs         *metrics.Counter
	badShort, badMagic, badType, badFragment      *metrics.Counter
	badPayloadLength, badOther                    *metrics.Counter
	badConnectPayload, connectsRefused            *metrics.Counter
	icmpUnreachable, icmpOther                    *metrics.Counter
	clientsUnreachable, sessionLogsSuppressed     *metrics.Counter
	connected                                     *metrics.Gauge

	reg *dsmetrics.Metrics // what was registered, for Close
}

func newStreamerMetrics(ms *metrics.Set, name string) *streamerMetrics {
	n := dsmetrics.New(ms, "udpstreamer", name)
	c := n.Counter
	bad := func(reason string) *metrics.Counter {
		return c("bad_datagrams_total", fmt.Sprintf(`reason=%q`, reason))
	}
	return &streamerMetrics{
		reg:                   n,
		synchronised:          c("synchronise_total"),
		skipped:               c("cycles_skipped_total"),
		lockTimeouts:          c("lock_timeouts_total"),
		wakeups:               c("network_wakeups_total"),
		noClient:              c("cycles_without_client_total"),
		updates:               c("updates_sent_total"),
		fragments:             c("fragments_sent_total"),
		bytes:                 c("sent_bytes_total"),
		sendErrors:            c("send_errors_total", `kind="data"`),
		configSendErrors:      c("send_errors_total", `kind="config"`),
		configsSent:           c("configs_sent_total"),
		configFragments:       c("config_fragments_sent_total"),
		connects:              c("connects_total"),
		replaced:              c("sessions_replaced_total"),
		disconnects:           c("disconnects_total"),
		strangerDisconnects:   c("stranger_disconnects_total"),
		refused:               c("refused_clients_total"),
		acks:                  c("acks_total"),
		controlDropped:        c("control_dropped_total"),
		recvErrors:            c("receive_errors_total"),
		nanInputs:             c("nan_inputs_total"),
		badShort:              bad("short"),
		badMagic:              bad("magic"),
		badType:               bad("type"),
		badFragment:           bad("fragment"),
		badPayloadLength:      bad("payload_length"),
		badOther:              bad("other"),
		badConnectPayload:     bad("connect_payload"),
		connectsRefused:       c("connects_refused_total"),
		icmpUnreachable:       c("icmp_errors_total", `kind="port_unreachable"`),
		icmpOther:             c("icmp_errors_total", `kind="other"`),
		clientsUnreachable:    c("clients_unreachable_total"),
		sessionLogsSuppressed: c("session_logs_suppressed_total"),
		connected:             n.Gauge("client_connected", nil),
	}
}

// badDatagram returns the counter for a header parse error.
func (m *streamerMetrics) badDatagram(err error) *metrics.Counter {
	switch err {
	case frame.ErrShort:
		return m.badShort
	case frame.ErrMagic:
		return m.badMagic
	case frame.ErrType:
		return m.badType
	case frame.ErrFragment:
		return m.badFragment
	case frame.ErrPayloadLength:
		return m.badPayloadLength
	}
	return m.badOther
}
