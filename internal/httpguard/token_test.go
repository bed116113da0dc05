package httpguard

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/internal/testenv"
)

func TestToken(t *testing.T) {
	const secret = "s3cret-token-0123456789"
	tok, err := ReadToken(testenv.WriteFile(t, "token", "  "+secret+"\n", 0o600))
	if err != nil {
		t.Fatal(err)
	}
	for auth, want := range map[string]bool{
		"Bearer " + secret: true, "bearer " + secret: true, "BEARER  " + secret + " ": true,
		"": false, "Bearer": false, "Bearer " + secret + "x": false, "Basic " + secret: false, secret: false,
	} {
		r := httptest.NewRequest("GET", "/", nil)
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		if got := tok.Bearer(r); got != want {
			t.Errorf("Authorization %q: %v", auth, got)
		}
	}
	s := tok.Session()
	if strings.Contains(s, secret) || !tok.SessionMatches(s) || tok.SessionMatches(s+"x") || tok.SessionMatches(secret) {
		t.Errorf("session %q", s)
	}
	other, _ := NewToken(secret + "2")
	if other.SessionMatches(s) {
		t.Error("another token's session matches")
	}
	for _, bad := range []string{"short", "has a space in the token", "tab\tinside-the-token-12345678", "ünïcödé-token-0123456789"} {
		if _, err := NewToken(bad); err == nil {
			t.Errorf("NewToken(%q) accepted", bad)
		}
	}
}

// A token file every user can read is worth a warning; one readable by
// its owner (and group) is not.
func TestTokenFileWarning(t *testing.T) {
	p := testenv.WriteFile(t, "token", "s3cret-token-0123456789", 0o600)
	for mode, warn := range map[os.FileMode]bool{0o600: false, 0o640: false, 0o400: false, 0o644: true, 0o604: true} {
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if got := TokenFileWarning(p); (got != "") != warn || warn && !strings.Contains(got, "readable by every user") {
			t.Errorf("mode %04o: %q", mode, got)
		}
	}
	if got := TokenFileWarning(filepath.Join(t.TempDir(), "missing")); got != "" {
		t.Errorf("missing file: %q", got)
	}
}
