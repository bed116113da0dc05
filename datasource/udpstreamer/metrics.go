package udpstreamer

import (
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
	bad                                           []*metrics.Counter // by badReason
	connectsRefused                               *metrics.Counter
	icmpUnreachable, icmpOther                    *metrics.Counter
	clientsUnreachable, sessionLogsSuppressed     *metrics.Counter
	connected                                     *metrics.Gauge

	reg *dsmetrics.Metrics // what was registered, for Close
}

func newStreamerMetrics(ms *metrics.Set, name string) *streamerMetrics {
	n := dsmetrics.New(ms, "udpstreamer", name)
	c := n.Counter
	m := &streamerMetrics{
		reg:                   n,
		synchronised:          c("synchronise_total"),
		skipped:               c("cycles_skipped_total"),
		lockTimeouts:          c("lock_timeouts_total"),
		wakeups:               c("network_wakeups_total"),
		noClient:              c("cycles_without_client_total"),
		updates:               c("updates_sent_total"),
		fragments:             c("fragments_sent_total"),
		bytes:                 c("sent_bytes_total"),
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
		connectsRefused:       c("connects_refused_total"),
		clientsUnreachable:    c("clients_unreachable_total"),
		sessionLogsSuppressed: c("session_logs_suppressed_total"),
		connected:             n.Gauge("client_connected", nil),
		bad:                   n.Family("bad_datagrams_total", "reason", badReasons[:]...),
	}
	sendErrors := n.Family("send_errors_total", "kind", "data", "config")
	m.sendErrors, m.configSendErrors = sendErrors[0], sendErrors[1]
	icmp := n.Family("icmp_errors_total", "kind", "port_unreachable", "other")
	m.icmpUnreachable, m.icmpOther = icmp[0], icmp[1]
	return m
}

// badReason is a reason of bad_datagrams_total, an index of
// streamerMetrics.bad.
type badReason int

const (
	badShort badReason = iota
	badMagic
	badType
	badFragment
	badPayloadLength
	badOther
	badConnectPayload
	numBadReasons
)

// badReasons are the reason labels of bad_datagrams_total.
var badReasons = [numBadReasons]string{"short", "magic", "type", "fragment", "payload_length", "other", "connect_payload"}

// badDatagram returns the counter for a header parse error.
func (m *streamerMetrics) badDatagram(err error) *metrics.Counter {
	r := badOther
	switch err {
	case frame.ErrShort:
		r = badShort
	case frame.ErrMagic:
		r = badMagic
	case frame.ErrType:
		r = badType
	case frame.ErrFragment:
		r = badFragment
	case frame.ErrPayloadLength:
		r = badPayloadLength
	}
	return m.bad[r]
}
