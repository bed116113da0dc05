//go:build !linux

package main

import "io"

// isTerminal reports false: the view needs Linux's terminal ioctls.
func isTerminal(io.Writer) bool { return false }

// termSize returns 24 by 80.
func termSize(io.Writer) (rows, cols int) { return 24, 80 }
