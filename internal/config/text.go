package config

import (
	"fmt"
	"io"
	"strconv"
	"unicode"

	"github.com/streamerd/streamerd/internal/clip"
)

// Bounds of the file's text in messages.
const (
	maxQuoted  = 64   // bytes of a name or value of the file quoted in a message
	maxMessage = 1024 // bytes of one message
)

// clipped is a string of the file as a message argument: %q quotes at
// most maxQuoted bytes of it, escaped, followed by the whole length when
// cut ("aaaa"…(1048576 bytes)). Other verbs print it unchanged.
type clipped string

func (c clipped) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		io.WriteString(f, clip.Quote(string(c), maxQuoted))
		return
	}
	io.WriteString(f, string(c))
}

// message formats an error message: every string argument quoted with %q
// is clipped, and the whole is at most about maxMessage bytes.
func message(format string, args ...any) string {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = clipped(s)
		}
	}
	return clipMessage(fmt.Sprintf(format, args...))
}

// clipMessage bounds a message built elsewhere (a producer's rule).
func clipMessage(msg string) string {
	if len(msg) <= maxMessage {
		return msg
	}
	return clip.Prefix(msg, maxMessage) + "…(" + strconv.Itoa(len(msg)) + " bytes)"
}

// quote quotes a string of the file for a message.
func quote(s string) string { return clip.Quote(s, maxQuoted) }

// badRune returns the index and value of the first rune of s that has no
// place in a name or a unit: a control character (C0, DEL, C1: ESC starts
// the terminal sequences that clear a screen or set a title), a format
// character (bidirectional overrides, zero-width characters) or a line or
// paragraph separator. ok is false when there is none.
func badRune(s string) (at int, r rune, ok bool) {
	for i, r := range s {
		if unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
			return i, r, true
		}
	}
	return 0, 0, false
}
