// Package scope serves a web oscilloscope for the three wire formats: one receiving session per source, a bounded min/max history per signal, and binary frames decimated per pixel column to any number of browsers over WebSocket.
package scope
