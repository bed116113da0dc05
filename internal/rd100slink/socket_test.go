package rd100slink

import (
	"net"
	"strings"
	"testing"
)

// TestListenUDP: the socket is bound where asked and receives; an address
// that does not resolve or cannot be bound is an error naming it.
func TestListenUDP(t *testing.T) {
	conn, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tx, err := net.DialUDP("udp", nil, conn.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	if _, err := tx.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	var b [8]byte
	if n, _, err := conn.ReadFromUDP(b[:]); err != nil || n != 1 {
		t.Fatalf("read %d, %v", n, err)
	}
	for _, addr := range []string{"127.0.0.1", "127.0.0.1:99999", conn.LocalAddr().String()} {
		if c, err := ListenUDP(addr); err == nil {
			c.Close()
			t.Errorf("%s: no error", addr)
		} else if !strings.Contains(err.Error(), "RD100S listen") || !strings.Contains(err.Error(), addr) {
			t.Errorf("%s: %v", addr, err)
		}
	}
}
