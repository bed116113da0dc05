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

// opener is a datasource that binds its sockets in a step of its own.
type opener interface{ Open() error }

// openerOf returns what opens ds's sockets before the start: ds itself (a
// Replay) or its Internals (a producer).
func openerOf(ds any) (opener, bool) {
	if o, ok := ds.(opener); ok {
		return o, true
	}
	o, ok := internalsOf(ds).(opener)
	return o, ok
}
