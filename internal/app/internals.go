package app

import (
	"time"
)

// internalsOf returns what a producer of this module offers the daemon
// beyond the DataSource contract (its Internals), or nil.
func internalsOf(ds any) any {
	if x, ok := ds.(interface{ Internals() any }); ok {
		return x.Internals()
	}
	return nil
}

// handOffCovers is a producer whose hand-off ring covers a time.
type handOffCovers interface{ HandOffCovers() time.Duration }
