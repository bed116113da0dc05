// Package client receives the header-less datagrams of a FlatUDP producer or of MARTe2's UDPSender, checking each one's size against the signal list.
//
// Usage:
//  1. Lay out the signal list with the wire package (wire.ParseLayout).
//  2. Open a socket with net.ListenUDP or ListenMulticast and wrap it:
//     r := NewReceiver(conn, layout).
//  3. r.Read returns each datagram of the right size; decode it with the
//     layout. Wrong sizes are counted, and reported once per size.
//
// Read does not allocate.
package client
