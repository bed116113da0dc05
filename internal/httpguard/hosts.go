package httpguard

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/internal/clip"
)

// Hosts are the names a server answers to in a request's Host header. A
// page of another site that makes its own name resolve to the server's
// address (DNS rebinding) reaches the server under that name, and the
// browser then lets it read the answers as its own: checking the name
// shuts it out. The names answered are localhost, every IP address
// literal (a rebinding needs a name that its author's DNS resolves; an
// address typed as such is resolved by no one), the host of the
// listening address when it is a name, and the names given.
type Hosts struct {
	names map[string]bool
	hint  string
	bad   *metrics.Counter
}

// NewHosts returns the names a server listening on listen answers to,
// with extra (names without a port). hint says where to add a name, for
// the refusal; refused, when not nil, counts the refusals.
func NewHosts(listen string, extra []string, hint string, refused *metrics.Counter) *Hosts {
	h := &Hosts{names: map[string]bool{"localhost": true}, hint: hint, bad: refused}
	if host, _, err := net.SplitHostPort(listen); err == nil && host != "" {
		h.names[NormalizeHost(host)] = true
	}
	for _, n := range extra {
		h.names[NormalizeHost(n)] = true
	}
	return h
}

// NormalizeHost returns the name of a Host header or a configured name as
// compared: without its port, brackets and final dot, in lower case.
func NormalizeHost(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.ToLower(strings.TrimSuffix(host, "."))
}

// CheckName reports what is wrong with name as an allowed host name: it
// is a name or an address, without a port or a path.
func CheckName(name string) error {
	if name == "" || strings.ContainsAny(name, "/ \t\\@?#") || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r > '~' }) {
		return fmt.Errorf("%q is not a host name (a name such as \"scope.example.org\", without scheme, port or path)", name)
	}
	if _, _, err := net.SplitHostPort(name); err == nil {
		return fmt.Errorf("%q: give the name without a port", name)
	}
	return nil
}

// Allowed reports whether host, a request's Host header, names the server.
// An empty one (an HTTP/1.0 request without Host, which no browser sends)
// is allowed.
func (h *Hosts) Allowed(host string) bool {
	if host == "" {
		return true
	}
	n := NormalizeHost(host)
	if h.names[n] {
		return true
	}
	_, err := netip.ParseAddr(n)
	return err == nil
}

// Check wraps next: a request whose Host is not one of the names gets 421
// Misdirected Request, saying which names are answered.
func (h *Hosts) Check(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.Allowed(r.Host) {
			inc(h.bad)
			http.Error(w, fmt.Sprintf("misdirected request: this server does not answer to the name %s (Host header); it answers to localhost, IP addresses and the names in %s",
				clip.Quote(NormalizeHost(r.Host), 64), h.hint), http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}
