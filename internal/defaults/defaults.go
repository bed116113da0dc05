// Package defaults fills in the options a caller left unset.
package defaults

// Positive returns v if it is above zero, else def: the value of an option
// whose zero (or a negative value) means its default.
func Positive[T ~int | ~int32 | ~int64 | ~float64](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}
