// Package sendpath is a producer's send path: datagrams of one update handed to the kernel in as few system calls as it allows (netthread.SendMethod), and the ICMP errors a receiver that has gone sends back.
package sendpath

import "github.com/streamerd/streamerd/netthread"

// SendMethod and its values are netthread's, the public names of the
// send methods.
type SendMethod = netthread.SendMethod

const (
	MethodAuto     = netthread.MethodAuto
	MethodGSO      = netthread.MethodGSO
	MethodSendmmsg = netthread.MethodSendmmsg
	MethodSendto   = netthread.MethodSendto
)
