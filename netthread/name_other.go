//go:build !linux || portable

package netthread

// nameThread does nothing here: threads keep the process's name.
func nameThread(string) {}
