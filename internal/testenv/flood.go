package testenv

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// SlowHeaders is a slow-header flood: sockets that each send only the
// start of a request line and its headers, wait until the server closes
// them, and connect again at once.
type SlowHeaders struct {
	Connects atomic.Int64 // connections made
	Cut      atomic.Int64 // connections the server closed
}

// StartSlowHeaders starts n sockets from the local address from (e.g.
// "127.0.0.2", any of 127.0.0.0/8 on Linux) at the HTTP server addr,
// each sending start; they stop when tb ends.
func StartSlowHeaders(tb testing.TB, addr, from string, n int, start string) *SlowHeaders {
	tb.Helper()
	f := &SlowHeaders{}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	for range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				c, err := d.DialContext(ctx, "tcp", addr)
				if err != nil {
					select {
					case <-ctx.Done():
					case <-time.After(10 * time.Millisecond):
					}
					continue
				}
				f.Connects.Add(1)
				stop := context.AfterFunc(ctx, func() { c.Close() })
				if _, err := io.WriteString(c, start); err == nil {
					io.Copy(io.Discard, c) // until the server closes it
				}
				if stop() {
					f.Cut.Add(1)
				}
				c.Close()
			}
		})
	}
	tb.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return f
}

// ProbeClient returns an HTTP client that opens a new connection from the
// local address from for every request. Its timeout only stops a hang.
func ProbeClient(from string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	return &http.Client{Timeout: time.Minute, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

// Probe GETs url with c and returns an error unless the answer is 200.
func Probe(c *http.Client, url string) error {
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
}
