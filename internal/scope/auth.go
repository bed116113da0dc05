package scope

import (
	"html/template"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/streamerd/streamerd/internal/httpguard"
)

// loginPage is the form a browser without the session cookie gets.
var loginPage = template.Must(template.ParseFS(webFS, "web/login.html"))

// maxLoginBody bounds the login form: a token and the page to go back to.
const maxLoginBody = 8 << 10

// tokenGate serves h to requests that carry tok: as a bearer header (a
// script, a Go client), or as the session cookie a browser got by posting
// the token to the login form once. Others get the form (a page) or 401.
// The cookie holds an HMAC of the token, never the token, is HttpOnly
// (the page's JavaScript cannot read it) and SameSite=Strict (another
// site's page cannot make the browser send it), and lasts until the
// browser closes. The form is posted from the same origin only.
type tokenGate struct {
	h      http.Handler
	tok    *httpguard.Token
	origin *http.CrossOriginProtection
}

func newTokenGate(h http.Handler, tok *httpguard.Token) *tokenGate {
	return &tokenGate{h: h, tok: tok, origin: http.NewCrossOriginProtection()}
}

// cookieName names the session cookie after the server's port: a browser
// sends a host's cookies to all its ports, and two scopes on one host
// may have different tokens.
func cookieName(r *http.Request) string {
	name := "streamerd_scope"
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if ta, ok := a.(*net.TCPAddr); ok {
			name += "_" + strconv.Itoa(ta.Port)
		}
	}
	return name
}

func (g *tokenGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/login") {
		g.login(w, r)
		return
	}
	if g.tok.Bearer(r) {
		g.h.ServeHTTP(w, r)
		return
	}
	if c, err := r.Cookie(cookieName(r)); err == nil && g.tok.SessionMatches(c.Value) {
		g.h.ServeHTTP(w, r)
		return
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="streamerd scope"`)
	if r.Method == http.MethodGet && (strings.HasSuffix(r.URL.Path, "/") || strings.Contains(r.Header.Get("Accept"), "text/html")) {
		g.form(w, http.StatusUnauthorized, r.URL.Path, "")
		return
	}
	http.Error(w, "unauthorized: open the scope's page and give the token, or send Authorization: Bearer <token>", http.StatusUnauthorized)
}

// login checks the posted token and sets the session cookie.
func (g *tokenGate) login(w http.ResponseWriter, r *http.Request) {
	page := strings.TrimSuffix(r.URL.Path, "login")
	if r.Method != http.MethodPost {
		g.form(w, http.StatusOK, page, "")
		return
	}
	if err := g.origin.Check(r); err != nil {
		http.Error(w, "forbidden: cross-origin login", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxLoginBody)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "malformed login form", http.StatusBadRequest)
		return
	}
	next := r.PostForm.Get("next")
	if !localPath(next) {
		next = page
	}
	if !g.tok.Matches(r.PostForm.Get("token")) {
		g.form(w, http.StatusUnauthorized, next, "wrong token")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName(r), Value: g.tok.Session(), Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// localPath reports whether p is a path of this server, which a redirect
// may go to: absolute, and not "//host" or "/\host", which browsers read
// as another host.
func localPath(p string) bool {
	return strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "/\\") &&
		!strings.ContainsAny(p, "\r\n")
}

func (g *tokenGate) form(w http.ResponseWriter, code int, next, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	loginPage.Execute(w, struct{ Next, Message string }{next, msg})
}
