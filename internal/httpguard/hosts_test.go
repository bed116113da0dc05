package httpguard

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHosts(t *testing.T) {
	h := NewHosts("myhost.lab:9100", []string{"Scope.Example.Org."}, "-allowed-hosts", nil)
	for host, want := range map[string]bool{
		"": true, "localhost": true, "LOCALHOST:9100": true, "localhost.": true,
		"127.0.0.1": true, "127.0.0.1:80": true, "[::1]:9100": true, "[::1]": true, "192.0.2.1:9100": true, "[2001:db8::1]:1": true,
		"myhost.lab:9100": true, "scope.example.org": true, "scope.example.org:8090": true,
		"evil.example": false, "evil.example:9100": false, "localhost.evil.example": false, "127.0.0.1.evil.example": false,
		"myhost": false, "example.org": false, "[evil]": false,
	} {
		if got := h.Allowed(host); got != want {
			t.Errorf("Allowed(%q) = %v", host, got)
		}
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/", nil)
	req.Host = "evil.example:9100"
	h.Check(http.NotFoundHandler()).ServeHTTP(rec, req)
	if rec.Code != http.StatusMisdirectedRequest || !strings.Contains(rec.Body.String(), `"evil.example"`) || !strings.Contains(rec.Body.String(), "-allowed-hosts") {
		t.Errorf("%d %q", rec.Code, rec.Body)
	}
}

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{
		"scope.example.org": true, "myhost": true, "10.0.0.1": true,
		"": false, "host:80": false, "http://host": false, "a b": false, "host/x": false, "h\x1bost": false, "hôst": false,
	} {
		if err := CheckName(name); (err == nil) != ok {
			t.Errorf("CheckName(%q) = %v", name, err)
		}
	}
}
