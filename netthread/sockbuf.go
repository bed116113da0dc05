package netthread

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
)

// Buffers is what SetBuffers asked for and what the kernel granted, in
// bytes of datagrams. (Linux reserves twice the size granted, the other
// half for its bookkeeping, and reports that double; Got is halved back.)
// Linux caps a size at net.core.wmem_max or rmem_max unless Forced.
type Buffers struct {
	sendWant, SendGot int
	recvWant, RecvGot int
	// Forced is true when SO_SNDBUFFORCE and SO_RCVBUFFORCE were allowed
	// (root or CAP_NET_ADMIN): the sizes are then not capped.
	forced bool
}

// sendCapped and recvCapped report whether the kernel granted less than
// asked.
func (b Buffers) sendCapped() bool { return b.sendWant > 0 && b.SendGot < b.sendWant }
func (b Buffers) recvCapped() bool { return b.recvWant > 0 && b.RecvGot < b.recvWant }

// SetBuffers sizes the send and receive buffers of conn (a size of 0
// leaves that one as it is) and reads both back. It first tries the FORCE
// variants, which a privileged process may set beyond the system's caps,
// then the plain options. A size beyond 1 GiB asks the kernel for 1 GiB
// (the options are C ints, and Linux takes at most half their range);
// Buffers still reports the size asked, and a nil conn is an error.
func SetBuffers(conn *net.UDPConn, send, recv int) (Buffers, error) {
	if conn == nil {
		return Buffers{sendWant: send, recvWant: recv}, errors.New("netthread: SetBuffers: nil conn")
	}
	b := Buffers{sendWant: min(send, maxBuffer), recvWant: min(recv, maxBuffer)}
	rc, err := conn.SyscallConn()
	if err == nil {
		var serr error
		if err = rc.Control(func(fd uintptr) { serr = setBuffers(fd, &b) }); err == nil {
			err = serr
		}
	}
	b.sendWant, b.recvWant = send, recv
	return b, err
}

// maxBuffer is the largest buffer SetBuffers asks for: a larger C int
// would wrap, and Linux takes at most MaxInt32/2 (it doubles the size).
const maxBuffer = 1 << 30

// fits reports whether the send buffer holds an update of n bytes.
func (b Buffers) fits(n int) bool { return b.SendGot <= 0 || n <= b.SendGot }

// Log writes one line on the buffers of a socket and, when the send
// buffer cannot hold one update of updateBytes bytes, or the kernel capped
// a size, a warning saying what to do. A nil log writes nothing.
func (b Buffers) Log(log *slog.Logger, socket string, updateBytes int) {
	if log == nil {
		return
	}
	log.Info("socket buffers", "socket", socket, "send_bytes", b.SendGot, "send_asked", b.sendWant,
		"receive_bytes", b.RecvGot, "receive_asked", b.recvWant, "forced", b.forced)
	if !b.fits(updateBytes) {
		log.Warn("the send buffer cannot hold one update: the kernel will refuse part of every update",
			"socket", socket, "send_bytes", b.SendGot, "update_bytes", updateBytes,
			"fix", fmt.Sprintf("raise net.core.wmem_max to at least %d, or run with CAP_NET_ADMIN", updateBytes))
		return
	}
	if b.sendCapped() || b.recvCapped() {
		log.Warn("the kernel granted smaller socket buffers than asked (net.core.wmem_max, rmem_max); raise them or run with CAP_NET_ADMIN",
			"socket", socket, "send_bytes", b.SendGot, "send_asked", b.sendWant, "receive_bytes", b.RecvGot, "receive_asked", b.recvWant)
	}
}
