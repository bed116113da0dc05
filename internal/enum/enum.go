// Package enum names the values of the small integer enumerations from one table of names, and parses the names back.
package enum

import (
	"fmt"
	"slices"
	"strings"
)

// Name returns names[v], or "typ(v)" for a value without a name.
func Name[E ~uint8](names []string, v E, typ string) string {
	if int(v) >= len(names) {
		return fmt.Sprintf("%s(%d)", typ, uint8(v))
	}
	return names[v]
}

// Parse returns the value whose name is s, and false if none has it.
func Parse[E ~uint8](names []string, s string) (E, bool) {
	i := slices.Index(names, s)
	return E(i), i >= 0
}

// Lookup returns the value whose name is s, or an error that lists the
// names: unknown <what> "s" (want a, b or c).
func Lookup[E ~uint8](names []string, s, what string) (E, error) {
	if v, ok := Parse[E](names, s); ok {
		return v, nil
	}
	want := names[len(names)-1]
	if len(names) > 1 {
		want = strings.Join(names[:len(names)-1], ", ") + " or " + want
	}
	return 0, fmt.Errorf("unknown %s %q (want %s)", what, s, want)
}
