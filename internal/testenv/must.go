package testenv

// Must returns v, and panics with err when it is not nil: for a test's
// call whose failure is a bug of the test (a signal's buffer, fetched
// after AllocateMemory, by an index the test declared).
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
