package datasource

import (
	"bytes"
	"io"

	"github.com/valyala/bytebufferpool"
)

// Help shared by the producers that count alike.
const (
	helpSynchronise  = "Calls of Synchronise by the RT thread, every one: a lock timeout or a refused cycle too."
	helpLockTimeouts = "Synchronise calls that could not take the signal memory lock in time; their cycle is not sent."
	helpICMPPort     = "ICMP port unreachable errors the kernel reported for the datagrams sent: no receiver listens at the destination."
	helpWakeups      = "Synchronise calls that had to wake the network thread asleep on its semaphore (a futex system call on the RT thread)."
	helpUnreachable  = "1 while the destination answers with ICMP port unreachable (one in the last 5 s), else 0."
)

// metricHelp is the one-line help of every metric family a producer
// registers through Metrics (streamerd_<class>_<metric>): what it counts
// and in which unit. WritePrometheus fills the # HELP lines from it.
var metricHelp = map[string]string{
	// UDPStreamer (udpstreamer/metrics.go).
	"streamerd_udpstreamer_synchronise_total":             helpSynchronise,
	"streamerd_udpstreamer_lock_timeouts_total":           "Synchronise calls that could not take the signal memory lock in time; the cycle is held and published before the next one; only a timeout with every held slot full (up to 32) skips one.",
	"streamerd_udpstreamer_network_wakeups_total":         helpWakeups,
	"streamerd_udpstreamer_cycles_skipped_total":          "Cycles never sent: replaced or overwritten in the hand-off before the network thread took them, or dropped on a lock timeout.",
	"streamerd_udpstreamer_cycles_without_client_total":   "Cycles the network thread took while no client held the session.",
	"streamerd_udpstreamer_updates_sent_total":            "DATA updates whose every fragment reached the kernel.",
	"streamerd_udpstreamer_fragments_sent_total":          "DATA datagrams (fragments) that reached the kernel.",
	"streamerd_udpstreamer_sent_bytes_total":              "UDP payload bytes of the DATA updates whose every fragment reached the kernel, protocol headers included, in bytes.",
	"streamerd_udpstreamer_send_errors_total":             "Sends that failed, DATA updates (kind=data) or CONFIG messages (kind=config).",
	"streamerd_udpstreamer_configs_sent_total":            "CONFIG messages sent whole, one per accepted CONNECT.",
	"streamerd_udpstreamer_config_fragments_sent_total":   "CONFIG datagrams (fragments) that reached the kernel.",
	"streamerd_udpstreamer_connects_total":                "CONNECTs that started or renewed a session.",
	"streamerd_udpstreamer_sessions_replaced_total":       "Sessions taken over by a CONNECT from another address.",
	"streamerd_udpstreamer_disconnects_total":             "Sessions ended by their client's DISCONNECT.",
	"streamerd_udpstreamer_stranger_disconnects_total":    "DISCONNECTs ignored because they came from another address than the client's.",
	"streamerd_udpstreamer_refused_clients_total":         "CONNECTs dropped because their address is not in AllowedClients.",
	"streamerd_udpstreamer_connects_refused_total":        "CONNECTs refused because another live client holds the session, SessionPolicy first.",
	"streamerd_udpstreamer_acks_total":                    "ACK datagrams received; they have no effect.",
	"streamerd_udpstreamer_control_dropped_total":         "Session changes (CONNECT, DISCONNECT, unreachable client) dropped because the control queue was full.",
	"streamerd_udpstreamer_receive_errors_total":          "Errors reading the server socket other than ICMP port unreachable.",
	"streamerd_udpstreamer_nan_inputs_total":              "NaN samples met while quantising signals for the wire.",
	"streamerd_udpstreamer_bad_datagrams_total":           "Malformed datagrams received and dropped, by reason.",
	"streamerd_udpstreamer_icmp_errors_total":             "ICMP errors the kernel reported for the server's datagrams, by kind.",
	"streamerd_udpstreamer_clients_unreachable_total":     "Sessions ended by an ICMP port unreachable from their client.",
	"streamerd_udpstreamer_session_logs_suppressed_total": "Session log lines left out by the rate limit.",
	"streamerd_udpstreamer_client_connected":              "1 while a client holds the session, else 0.",

	// RD100S (rd100s/metrics.go).
	"streamerd_rd100s_synchronise_total":               helpSynchronise,
	"streamerd_rd100s_lock_timeouts_total":             helpLockTimeouts,
	"streamerd_rd100s_ticks_total":                     "Ticks of the emitter's own clock that built a packet.",
	"streamerd_rd100s_ticks_missed_total":              "Ticks skipped because the emitter woke a whole period late; they consume no seq.",
	"streamerd_rd100s_packets_sent_total":              "Packets that reached the kernel, duplicates included.",
	"streamerd_rd100s_send_errors_total":               "Packet sends that failed.",
	"streamerd_rd100s_packets_dropped_total":           "Packets not sent by a loss degradation, by reason (loss, burst).",
	"streamerd_rd100s_packets_silenced_total":          "Packets not sent while the silence degradation is on.",
	"streamerd_rd100s_packets_duplicated_total":        "Packets sent twice by the duplicate degradation.",
	"streamerd_rd100s_packets_delayed_total":           "Packets held in the reorder window.",
	"streamerd_rd100s_packets_reordered_total":         "Packets sent after a packet of higher seq.",
	"streamerd_rd100s_reorder_overflow_total":          "Packets sent early because the reorder window was full.",
	"streamerd_rd100s_packets_jittered_total":          "Ticks whose instant the jitter degradation moved.",
	"streamerd_rd100s_packets_frozen_total":            "Packets sent with the positions held by the freeze degradation.",
	"streamerd_rd100s_seq_jumps_total":                 "Sequence jumps applied to seq by the seq_jump degradation.",
	"streamerd_rd100s_simulated_restarts_total":        "Simulated restarts, seq and t_us moved back together.",
	"streamerd_rd100s_nonfinite_readings_total":        "Axis readings that were NaN or infinite, sent as the last good values with VALID cleared.",
	"streamerd_rd100s_degradation_activations_total":   "Degradations switched on, by degradation.",
	"streamerd_rd100s_degradation_deactivations_total": "Degradations switched off, by degradation.",
	"streamerd_rd100s_events_unlogged_total":           "Events recorded but not logged because the log queue was full.",
	"streamerd_rd100s_icmp_port_unreachable_total":     helpICMPPort,
	"streamerd_rd100s_destination_unreachable":         helpUnreachable,

	// FlatUDP (flatudp/metrics.go).
	"streamerd_flatudp_synchronise_total":           helpSynchronise,
	"streamerd_flatudp_network_wakeups_total":       helpWakeups,
	"streamerd_flatudp_cycles_queued_total":         "Cycles Synchronise put in the ring for the sender thread.",
	"streamerd_flatudp_overflows_total":             "Cycles Synchronise refused because the ring was full.",
	"streamerd_flatudp_triggers_total":              "Cycles whose Trigger signal was non-zero, IndependentThread mode.",
	"streamerd_flatudp_cycles_sent_total":           "Cycles the sender thread tried to send, failed sends included.",
	"streamerd_flatudp_cycles_skipped_total":        "Cycles released unsent, outside every trigger window.",
	"streamerd_flatudp_datagrams_sent_total":        "Datagrams that reached the kernel, one per cycle.",
	"streamerd_flatudp_sent_bytes_total":            "UDP payload bytes of the datagrams that reached the kernel, in bytes.",
	"streamerd_flatudp_send_errors_total":           "Datagram sends that failed.",
	"streamerd_flatudp_ring_depth":                  "Cycles in the ring: queued for the sender thread or kept as pre-triggers.",
	"streamerd_flatudp_icmp_port_unreachable_total": helpICMPPort,
	"streamerd_flatudp_destination_unreachable":     helpUnreachable,
}

// WritePrometheus writes what write writes (a metrics.Set's
// WritePrometheus, metrics.WriteProcessMetrics...) to w with every empty
// "# HELP family" line filled in: from help, then from the producers'
// table, whose text says what each family counts and its unit. A family
// found in neither keeps its empty line. metrics.ExposeMetadata(true) has
// the metrics package write the # HELP and # TYPE lines; without it there
// is nothing to fill; a nil write, or a nil w, writes nothing. It holds the text in
// buffers of bytebufferpool, so a steady scrape rate allocates nothing for
// them.
//
//	http.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
//		datasource.WritePrometheus(w, set.WritePrometheus, nil)
//	})
func WritePrometheus(w io.Writer, write func(io.Writer), help map[string]string) {
	if write == nil || w == nil {
		return
	}
	in := bytebufferpool.Get()
	defer bytebufferpool.Put(in)
	write(in)
	out := bytebufferpool.Get()
	defer bytebufferpool.Put(out)
	out.B = appendHelp(out.B, in.B, help)
	w.Write(out.B)
}

var helpPrefix = []byte("# HELP ")

// lineEnd returns 1 when line ends in a newline, else 0.
func lineEnd(line []byte) int {
	if len(line) > 0 && line[len(line)-1] == '\n' {
		return 1
	}
	return 0
}

// appendHelp appends text to dst, each empty # HELP line given the help
// of its family from help or metricHelp when either has one.
func appendHelp(dst, text []byte, help map[string]string) []byte {
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line = text[:i+1]
		}
		text = text[len(line):]
		family, ok := bytes.CutPrefix(line[:len(line)-lineEnd(line)], helpPrefix)
		if ok && len(family) > 0 && bytes.IndexByte(family, ' ') < 0 {
			h := help[string(family)]
			if h == "" {
				h = metricHelp[string(family)]
			}
			if h != "" {
				dst = append(dst, helpPrefix...)
				dst = append(dst, family...)
				dst = append(dst, ' ')
				dst = append(dst, h...)
				dst = append(dst, '\n')
				continue
			}
		}
		dst = append(dst, line...)
	}
	return dst
}
