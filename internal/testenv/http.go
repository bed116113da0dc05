package testenv

import (
	"io"
	"net/http"
	"testing"
)

// HTTPGet fetches url and returns the status and the body, failing tb when
// the request cannot be made.
func HTTPGet(tb testing.TB, url string) (int, string) {
	tb.Helper()
	resp, err := http.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
