package netthread

import (
	"fmt"
)

// SendMethod is how a Sender hands the datagrams of one update to the
// kernel. Its text form ("auto", "gso", "sendmmsg", "sendto") is the one
// the configuration, /status and the docs use.
//
// The datagrams of one update lie back to back in one caller-owned buffer:
// datagram i starts at i×segment and every datagram but the last is
// exactly segment bytes long (wire.Layout lays DATA and CONFIG out this
// way). One update of 1400-byte datagrams to a loopback socket, 2 vCPU AMD
// EPYC VM under load, median of 3 runs of
// go test -run '^$' -bench BenchmarkSend -benchtime 3000x -count 3 ./datasource/internal/sendpath:
//
//	fragments   sendto    sendmmsg   gso
//	1           7.8 µs    8.1 µs     7.2 µs
//	3           21.7 µs   12.7 µs    6.7 µs
//	45          245 µs    163 µs     29 µs
type SendMethod uint8

// The send methods.
const (
	// MethodAuto probes GSO, then sendmmsg, and falls back to sendto: GSO
	// was the fastest in every case measured, and by far for many
	// fragments.
	MethodAuto SendMethod = iota
	// MethodGSO is sendmsg with a UDP_SEGMENT control message: the kernel
	// cuts the buffer into datagrams (up to 64 segments and 65507 bytes
	// per call). Linux only. If it fails on a device (a segment above its
	// MTU), the Sender switches to sendmmsg for good.
	MethodGSO
	// MethodSendmmsg is one sendmmsg call for up to 1024 datagrams. Linux
	// only.
	MethodSendmmsg
	// MethodSendto is one sendto per datagram, through the net package:
	// every system has it.
	MethodSendto
	numSendMethods
)

var sendMethodNames = [numSendMethods]string{"auto", "gso", "sendmmsg", "sendto"}

// String returns "auto", "gso", "sendmmsg" or "sendto".
func (m SendMethod) String() string {
	if m >= numSendMethods {
		return fmt.Sprintf("SendMethod(%d)", uint8(m))
	}
	return sendMethodNames[m]
}

// MarshalText returns the name String returns, or an error for a value
// that is not a send method.
func (m SendMethod) MarshalText() ([]byte, error) {
	if m >= numSendMethods {
		return nil, fmt.Errorf("netthread: %v is not a send method", m)
	}
	return []byte(sendMethodNames[m]), nil
}

// UnmarshalText reads "auto", "gso", "sendmmsg" or "sendto", and refuses
// anything else with an error naming the four.
func (m *SendMethod) UnmarshalText(text []byte) error {
	for i, name := range sendMethodNames {
		if string(text) == name {
			*m = SendMethod(i)
			return nil
		}
	}
	return fmt.Errorf("netthread: unknown send method %q (want auto, gso, sendmmsg or sendto)", text)
}
