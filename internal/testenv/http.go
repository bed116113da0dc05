package testenv

import (
	"io"
	"net/http"
	"testing"
)

// maxHTTPBody bounds the body HTTPDo reads.
const maxHTTPBody = 16 << 20

// HTTPGet fetches url and returns the status and the body, failing tb when
// the request cannot be made.
func HTTPGet(tb testing.TB, url string) (int, string) {
	tb.Helper()
	return HTTPDo(tb, nil, http.MethodGet, url, nil)
}

// HTTPDo sends a method request for url with body (nil: none) and the
// header's name, value pairs ("Host" sets the request's host) through c
// (nil: http.DefaultClient), and returns the status and the body (its
// first 16 MiB), failing tb when the request cannot be made.
func HTTPDo(tb testing.TB, c *http.Client, method, url string, body io.Reader, header ...string) (int, string) {
	tb.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxHTTPBody))
	return resp.StatusCode, string(b)
}
