package scope

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// viewer is one page connected over WebSocket. Its writer (the handler's
// goroutine) builds and sends frames at the viewer's rate from the hub's
// current state, so there is no queue: a frame is made when the viewer can
// take one. At most maxInFlight frames wait for the page's acknowledgement;
// a page that acknowledges slowly gets fewer frames, one that stops
// reading is disconnected when a write blocks for WriteTimeout, one that
// stops acknowledging when AckTimeout passes, and one that sends no view
// in AckTimeout after it was sent the signal list (not a scope page).
type viewer struct {
	s    *Server
	conn *websocket.Conn
	wake chan struct{} // capacity 1: the view changed

	mu      sync.Mutex
	v       view
	hasView bool
	dirty   bool   // view changed since the last frame
	acked   uint32 // highest frame sequence the page acknowledged
	ackedAt time.Time
	notice  string // to send: one line about the last view refused

	sc        frameScratch
	seq       uint32
	metaSent  bool
	sentMeta  uint64
	sentStats uint64
	metaAt    time.Time // when the first signal list was sent (zero: none yet)
}

// maxInFlight is how many frames may await the page's acknowledgement.
const maxInFlight = 2

// clientMsg is any message from a page.
type clientMsg struct {
	Type string `json:"type"` // "view" or "ack"
	Seq  uint32 `json:"seq"`  // ack: the frame's sequence
}

// run serves the viewer until the page goes, ctx ends or a bound is hit;
// it returns why, after closing the connection (with the reason when the
// page can still hear it).
func (vw *viewer) run(ctx context.Context) error {
	rctx, cancelRead := context.WithCancel(ctx)
	defer cancelRead()
	readErr := make(chan error, 1)
	go func() { readErr <- vw.read(rctx) }()
	err := vw.write(ctx, readErr)
	if errors.Is(err, errReaderDone) {
		err = <-readErr
		readErr <- err
	}
	switch {
	case errors.Is(err, errMessageTooBig):
		vw.conn.Close(websocket.StatusMessageTooBig, err.Error())
	case errors.Is(err, errAckTimeout), errors.Is(err, errWriteTimeout), errors.Is(err, errNoView):
		vw.conn.Close(closeDropped, err.Error())
	}
	cancelRead()
	vw.conn.CloseNow()
	<-readErr
	return err
}

var (
	errReaderDone    = errors.New("scope: the page's reader ended")
	errMessageTooBig = errors.New("scope: message from the page over the size limit")
)

// read takes the page's messages: views and acknowledgements. A message
// over MaxMessage ends it with errMessageTooBig.
func (vw *viewer) read(ctx context.Context) error {
	buf := make([]byte, vw.s.opts.MaxMessage+1)
	for {
		typ, r, err := vw.conn.Reader(ctx)
		if err != nil {
			return err
		}
		n, err := io.ReadFull(r, buf)
		switch {
		case err == nil:
			return errMessageTooBig
		case err != io.ErrUnexpectedEOF && err != io.EOF:
			return err
		}
		if typ != websocket.MessageText {
			return errors.New("scope: binary message from a page")
		}
		data := buf[:n]
		var m clientMsg
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		switch m.Type {
		case "ack":
			vw.mu.Lock()
			if int32(m.Seq-vw.acked) > 0 && int32(m.Seq-vw.seq) <= 0 {
				vw.s.framesAcked.Add(uint64(m.Seq - vw.acked))
				vw.acked, vw.ackedAt = m.Seq, time.Now()
			}
			vw.mu.Unlock()
		case "view":
			vw.setView(data)
		default:
			return errors.New("scope: unknown message type " + m.Type)
		}
	}
}

// setView installs a page's new view; a refused one is told back.
func (vw *viewer) setView(data []byte) {
	h := vw.s.hub
	v, err := decodeView(data, h.lim)
	if err == nil {
		err = h.checkTraces(&v)
	}
	var notice string
	if err != nil {
		notice = "view refused: " + err.Error()
	}
	if err == nil {
		for _, t := range v.traces {
			if t.kind != KindElement {
				continue
			}
			if err := h.ensureElement(v.gen, t.sig, t.elem); err != nil {
				notice = "element trace not recorded: " + err.Error()
			}
		}
	}
	vw.mu.Lock()
	if err == nil {
		if !v.live {
			if vw.hasView && !vw.v.live && vw.v.gen == v.gen {
				v.anchors = vw.v.anchors // still frozen at the same moment
			} else {
				v.anchors = h.anchors(v.gen)
			}
		}
		vw.v, vw.hasView, vw.dirty = v, true, true
	}
	vw.notice = notice
	vw.mu.Unlock()
	select {
	case vw.wake <- struct{}{}:
	default:
	}
}

// write sends meta, stats and frames until an error, or errReaderDone
// when the reader ends.
func (vw *viewer) write(ctx context.Context, readErr chan error) error {
	o := &vw.s.opts
	tick := time.NewTicker(time.Second / time.Duration(o.FrameRate))
	defer tick.Stop()
	fps := o.FrameRate
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-readErr:
			readErr <- err // for run
			return errReaderDone
		case <-tick.C:
		case <-vw.wake:
		}
		if err := vw.sendText(ctx); err != nil {
			return err
		}
		vw.mu.Lock()
		v, has, dirty, notice := vw.v, vw.hasView, vw.dirty, vw.notice
		inFlight, ackedAt := vw.seq-vw.acked, vw.ackedAt
		vw.notice = ""
		vw.mu.Unlock()
		if notice != "" {
			if err := vw.writeMsg(ctx, websocket.MessageText, noticeJSON(notice)); err != nil {
				return err
			}
		}
		want := o.FrameRate // a view's fps 0 asks for the server's rate
		if v.fps > 0 {
			want = min(v.fps, o.FrameRate)
		}
		if has && want != fps {
			fps = want
			tick.Reset(time.Second / time.Duration(fps))
		}
		if !has && !vw.metaAt.IsZero() && time.Since(vw.metaAt) > o.AckTimeout {
			return errNoView // not a scope page: it holds a viewer's place
		}
		if !has || (!v.live && !dirty) {
			continue
		}
		if inFlight >= maxInFlight {
			vw.s.framesHeld.Add(1) // this frame is held, whatever comes next
			if time.Since(ackedAt) > o.AckTimeout {
				return errAckTimeout
			}
			continue
		}
		vw.mu.Lock()
		vw.dirty = false
		vw.seq++
		if inFlight == 0 {
			vw.ackedAt = time.Now() // the wait for an acknowledgement starts now
		}
		seq := vw.seq
		vw.mu.Unlock()
		frame := vw.s.hub.appendFrame(&vw.sc, &v, seq)
		if err := vw.writeMsg(ctx, websocket.MessageBinary, frame); err != nil {
			return err
		}
		vw.s.framesSent.Add(1)
		vw.s.frameBytes.Add(uint64(len(frame)))
	}
}

var (
	errAckTimeout = errors.New("scope: the page stopped acknowledging frames")
	errNoView     = errors.New("scope: the page sent no view")
)

// sendText sends the meta message when a new one was made and the stats
// message when new ones were made.
func (vw *viewer) sendText(ctx context.Context) error {
	h := vw.s.hub
	if g := h.metaVer.Load(); g != vw.sentMeta || !vw.metaSent {
		vw.sentMeta, vw.metaSent = g, true
		meta := h.metaJSON()
		if err := vw.writeMsg(ctx, websocket.MessageText, meta); err != nil {
			return err
		}
		if len(meta) > 0 && vw.metaAt.IsZero() {
			vw.metaAt = time.Now() // a scope page answers with a view
		}
	}
	if n, msg := vw.s.stats(); n != vw.sentStats {
		vw.sentStats = n
		return vw.writeMsg(ctx, websocket.MessageText, msg)
	}
	return nil
}

// writeMsg writes one message, giving up after WriteTimeout.
func (vw *viewer) writeMsg(ctx context.Context, typ websocket.MessageType, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, vw.s.opts.WriteTimeout)
	defer cancel()
	if err := vw.conn.Write(ctx, typ, b); err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return errWriteTimeout
		}
		return err
	}
	return nil
}

var errWriteTimeout = errors.New("scope: a write to the page blocked past the write timeout")

func noticeJSON(s string) []byte {
	b, _ := json.Marshal(struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}{"notice", s})
	return b
}
