package record

import (
	"github.com/streamerd/streamerd/datasource"
	flatwire "github.com/streamerd/streamerd/datasource/flatudp/wire"
)

// elementType returns the type of element k of l's decoded slice.
func elementType(l *flatwire.Layout, k int) datasource.Type {
	for _, s := range l.Signals {
		if k < s.Count {
			return s.Type
		}
		k -= s.Count
	}
	return datasource.Type(0xFF)
}

// ElementType is elementType, for the external tests.
var ElementType = elementType
