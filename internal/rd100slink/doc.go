// Package rd100slink receives an RD100S-ENC-UDP stream and monitors its link quality (timeouts, gaps, duplicates, reordering, restarts, a frozen position) for rd100smon, the scope and record.
//
// Usage:
//  1. m := NewMonitor(MonitorConfig{}) holds the link state of one stream.
//  2. Hand it every datagram, either directly with m.Observe(datagram, now),
//     or through r := NewReceiver(conn, m) and r.ReadOne or r.Run, which
//     read a *net.UDPConn (ListenUDP opens one).
//  3. m.Snapshot() returns the counters of section 7 of docs/rd100s.md.
//
// Monitor.Observe and Receiver.ReadOne do not allocate.
package rd100slink
