package httpguard

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"strings"
	"unicode"

	"github.com/streamerd/streamerd/internal/regfile"
)

// Bounds of a token file.
const (
	MaxTokenFileBytes = 4 << 10 // the file
	MinTokenBytes     = 16      // the shortest token accepted
)

// Token is a bearer token. It keeps only the token's SHA-256 digest, and
// compares digests in constant time, so neither the token's content nor
// its length leaks through timing. Safe for concurrent use.
type Token struct {
	digest [sha256.Size]byte
}

// NewToken returns the token tok: at least MinTokenBytes of printable
// ASCII without spaces, as an HTTP header carries it.
func NewToken(tok string) (*Token, error) {
	if len(tok) < MinTokenBytes {
		return nil, fmt.Errorf("the token has %d bytes; at least %d (e.g. head -c 32 /dev/urandom | base64)", len(tok), MinTokenBytes)
	}
	for _, c := range tok {
		if c > unicode.MaxASCII || !unicode.IsPrint(c) || c == ' ' {
			return nil, fmt.Errorf("the token must be printable ASCII without spaces, as an HTTP header carries it")
		}
	}
	return &Token{digest: sha256.Sum256([]byte(tok))}, nil
}

// ReadToken reads the token from path: the file's content without
// surrounding white space (a regular file of at most MaxTokenFileBytes).
func ReadToken(path string) (*Token, error) {
	data, err := regfile.Read(path, MaxTokenFileBytes)
	if err != nil {
		return nil, err
	}
	t, err := NewToken(strings.TrimSpace(string(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// TokenFileWarning returns a warning when the file at path can be read by
// every user of the machine, "" otherwise (or when it cannot be looked
// at: reading it reports that).
func TokenFileWarning(path string) string {
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm()&0o004 == 0 {
		return ""
	}
	return fmt.Sprintf("%s is readable by every user (mode %04o): any local user can take the token; chmod o-r it (the daemon's user alone should read it)", path, st.Mode().Perm())
}

// Matches reports whether tok is the token.
func (t *Token) Matches(tok string) bool {
	sum := sha256.Sum256([]byte(tok))
	return subtle.ConstantTimeCompare(sum[:], t.digest[:]) == 1
}

// Bearer reports whether r carries the token in its Authorization header
// (the scheme in any case).
func (t *Token) Bearer(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && t.Matches(strings.TrimSpace(tok))
}

// Session returns the value of a cookie that stands for the token, so a
// browser that gave the token once carries it without keeping the token
// itself: an HMAC of the token's digest, which cannot be turned back into
// the token, and which only the token's holder can make.
func (t *Token) Session() string {
	m := hmac.New(sha256.New, t.digest[:])
	m.Write([]byte("streamerd browser session"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// SessionMatches reports whether v is the token's Session value.
func (t *Token) SessionMatches(v string) bool {
	a, b := sha256.Sum256([]byte(v)), sha256.Sum256([]byte(t.Session()))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}
