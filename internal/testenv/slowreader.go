package testenv

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// PipelineUnread sends n copies of the HTTP request req to addr over one
// connection whose receive buffer is 4 KiB, reads nothing for 2 s, then
// reads until the server closes and returns how many responses (status
// lines) came. A connection still open 20 s later fails tb. A server
// whose write timeout cuts a reader that slow returns fewer than n.
func PipelineUnread(tb testing.TB, addr, req string, n int) int {
	tb.Helper()
	c, err := dialSmallReceiveBuffer(tb, addr)
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	go c.Write([]byte(strings.Repeat(req, n)))
	time.Sleep(2 * time.Second) // not reading
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	b, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		tb.Fatal("connection still open after 20 s")
	}
	return strings.Count(string(b), "HTTP/1.1 ")
}
