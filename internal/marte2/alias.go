package marte2

import "unsafe"

// bytesString returns b as a string without copying it: b must not change
// while the string, or a part of it, is in use.
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// within reports whether s is a part of text, in its memory.
func within(s, text string) bool {
	if len(s) == 0 || len(text) == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	start := uintptr(unsafe.Pointer(unsafe.StringData(text)))
	return p >= start && p < start+uintptr(len(text))
}
