// Package scope serves a web oscilloscope for the three wire formats: one receiving session per source, a bounded min/max history per signal, and binary frames decimated per pixel column to any number of browsers over WebSocket.
//
// Usage:
//
//  1. Pick a Source: UDPStreamer (a session with a server through the
//     udpstreamer client library; the scope is the server's one client and
//     the fan-out to every page), FlatUDP (header-less datagrams laid out
//     by a signals string, as MARTe2's UDPSender sends them) or RD100S (an
//     encoder position stream, watched by the rd100s link monitor).
//  2. s := New(src, Options{}, log), then run s.Run(ctx): the source
//     receives into the server's Hub until ctx ends.
//  3. Serve s, an http.Handler, with Serve (it bounds header size,
//     request times and connections per client address, answers only
//     the server's own host names, and asks for HTTPOptions.Token when
//     there is one): "/" is the page, "/static/" its files, "/ws" the
//     pages' WebSocket, "/status.json" the counters.
//
// History. The source's goroutine pushes each update into the Hub. Every
// signal whose samples form a time trace (a scalar, or an array whose
// elements carry their own times) keeps its samples in a ring, and above
// it levels of minimum/maximum pairs, each four times coarser than the one
// below, so that a window of any length up to Limits.MaxWindow is drawn by
// scanning at most 16 points per pixel column, and a one-sample spike
// survives every reduction. Rings grow until they hold MaxWindow or reach
// their cap, within Limits.MaxHistoryBytes; after that receiving allocates
// nothing. Arrays also keep their latest update as a waveform, and any
// element can be recorded over time on request (Limits.MaxElementTraces at
// once). Lost updates and silences are breaks (NaN points) in every trace,
// and markers on each clock's time axis with the updates lost and the
// cycles skipped before an update, and the moments the stream stopped
// (marks.go).
//
// First view. For the first updates after a signal list, the hub compares
// the scalars: signals that carry one value (quantised or converted
// copies) and integers that rise at every update (counters, time stamps)
// are noted, and the first view a page shows is chosen from what is left,
// floats first, a few traces in a few plots (firstview.go). Nothing in it
// depends on signal names.
//
// Times are the stream's own: UDPStreamer per-sample times as the client
// library reconstructs them for every time mode, FlatUDP datagrams counted
// at the declared rate, RD100S t_us. Signals on different clocks (the
// server's clock for PacketTime, each time signal for the others) are
// shown against their own newest sample: a page's window is relative to
// "now" on each clock, and a paused page keeps each clock's "now" of the
// moment it paused.
//
// Pages. A page sends its view as JSON (traces, window, pixel columns) and
// gets binary frames (see frame.go for the layout): for each trace the
// points of the window, at most the minimum and maximum of each column, the
// samples themselves when there are few, and the markers of the window. A
// view has at most Limits.MaxTraces traces (MaxTraces, 256, by default),
// and a view of many traces gets fewer columns, so that a frame holds at
// most MaxFramePoints points. The page groups the traces into one plot
// per unit, each with its own x values (no common x to join them on), and
// greys its plots when the stream has stopped. A page's writer builds a frame
// when the page can take one, from the hub's state at that moment: there is
// no queue. At most two frames await the page's acknowledgement, so a page
// that draws slowly gets fewer frames; a page whose connection takes no
// data for Options.WriteTimeout, or that acknowledges nothing (or sends no
// view once it has the signal list) for Options.AckTimeout, is dropped; a
// page over Options.MaxViewers is refused with the reason; a message over
// Options.MaxMessage closes it. None of
// them ever holds up another page or the receiving: the source and the
// pages meet only in the hub's lock, held for one update or one trace.
//
// WebSocket rather than server-sent events: frames are binary (events are
// text, and base64 would add a third), and the one connection carries the
// page's view changes and acknowledgements back, which is how each page's
// frame rate follows what it can draw.
//
// The page is plain HTML, CSS and JavaScript with the vendored uPlot
// (web/vendor/uplot, MIT), all embedded: nothing is fetched from elsewhere,
// so it works on a machine without internet.
package scope
