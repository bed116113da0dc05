package testenv

import (
	"errors"
	"testing"
)

// ErrAny is the want of a misuse that may return any error, so long as it
// returns one.
var ErrAny = errors.New("any error")

// CheckMisuse runs run as the subtest name: it must return an error
// matching want (errors.Is; ErrAny: any error) and must not panic.
func CheckMisuse(t *testing.T, name string, want error, run func(t *testing.T) error) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("panicked: %v", r)
			}
		}()
		err := run(t)
		switch {
		case err == nil:
			t.Errorf("no error, want %v", want)
		case want != ErrAny && !errors.Is(err, want):
			t.Errorf("%v, want %v", err, want)
		}
	})
}
