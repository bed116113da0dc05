package sendpath

import (
	"fmt"
	"net"
	"testing"
)

// BenchmarkSend measures handing one update of 1, 3 and 45 fragments of a
// 1400-byte MaxPayloadSize to the kernel, per method, on loopback. The
// receiver does not read: the kernel drops what overflows its buffer, which
// costs the sender nothing.
func BenchmarkSend(b *testing.B) {
	srv := listen(b, "udp4", "127.0.0.1:0")
	rcv := listen(b, "udp4", "127.0.0.1:0")
	ms := methods(b, srv)
	for _, n := range []int{1, 3, 45} {
		for _, m := range ms {
			b.Run(fmt.Sprintf("frags=%d/%s", n, m), func(b *testing.B) {
				s, _ := NewSender(srv, m)
				s.SetDestination(rcv.LocalAddr().(*net.UDPAddr).AddrPort())
				buf := pattern(n, 1400, 0)
				b.ReportAllocs()
				b.SetBytes(int64(len(buf)))
				for b.Loop() {
					if _, err := s.Send(buf, 1400); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
