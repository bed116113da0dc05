package replay

import (
	"encoding/binary"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/record"
)

// paceColumns are the columns that time the rows: -1 when absent.
type paceColumns struct {
	time, producer, lost int
	scale                int64 // ns per unit of the producer's clock
}

func paceColumnsOf(l *record.Layout) paceColumns {
	pc := paceColumns{time: l.Column(record.ColTime), producer: l.Column(record.ColHRT), lost: l.Column(record.ColLost), scale: 1}
	if pc.producer < 0 {
		pc.producer, pc.scale = l.Column(record.ColTUs), 1000
	}
	return pc
}

// clockSlip is how far the producer's clock may disagree with the
// receive times between two rows before the receive times pace them
// instead (a producer that restarted).
const clockSlip = int64(time.Second)

// maxRowGap bounds the time between two rows as the replay plays it: a
// longer gap (a recording that paused, or a corrupt time column: one row
// 100 days after the last had the replay sleep 100 days) is played as
// maxRowGap and counted (Stats.Shortened).
const maxRowGap = int64(time.Minute)

// loopSeam is the least time between the last row of a pass and the first
// of the next: a recording whose rows all share one time (or a single row)
// played again and again would otherwise take a whole CPU.
const loopSeam = int64(time.Millisecond)

// Batches between the reader and the pacing thread.
const (
	batchBytes = 256 << 10 // signal memory per batch
	maxBatch   = 256       // rows per batch
	batches    = 4
)

// batch is rows decoded into signal memory images, with the time since
// the row before each and its gap. err, when set, follows the rows: io.EOF
// at the end of the recording.
type batch struct {
	mem []byte
	dt  []int64
	gap []uint32
	n   int
	err error
}

// element is where one value column goes in signal memory.
type element struct {
	col, off, size int
}

// feeder reads the recording's rows into batches ahead of the pacing
// thread: free batches come back on free, filled ones go out on full.
type feeder struct {
	file    *record.File
	l       *record.Layout
	pc      paceColumns
	elems   []element
	size    int   // bytes of signal memory
	offsets []int // where each signal starts in it
	loop    bool
	// shortened counts the gaps played as maxRowGap (the Replay's count).
	shortened *atomic.Uint64

	free, full chan *batch
	quit       chan struct{}
	wg         sync.WaitGroup
}

// newFeeder reads rows laid out as the signal memory of sigs: packed in
// declaration order (datasource.DataSource), offsets[i] where signal i
// starts.
func newFeeder(l *record.Layout, pc paceColumns, sigs []datasource.Signal, loop bool) *feeder {
	fd := &feeder{l: l, pc: pc, loop: loop, offsets: make([]int, len(sigs)), shortened: new(atomic.Uint64),
		free: make(chan *batch, batches), full: make(chan *batch, batches), quit: make(chan struct{})}
	for i := range sigs {
		fd.offsets[i] = fd.size
		fd.size += sigs[i].ByteSize()
	}
	for i := range l.Signals {
		first, n := l.FirstColumn(i), l.Signals[i].Elements()
		size := l.Signals[i].Type.Size()
		for k := range n {
			fd.elems = append(fd.elems, element{col: first + k, off: fd.offsets[i] + k*size, size: size})
		}
	}
	rows := max(1, min(maxBatch, batchBytes/max(1, fd.size)))
	for range batches {
		fd.free <- &batch{mem: make([]byte, rows*fd.size), dt: make([]int64, rows), gap: make([]uint32, rows)}
	}
	return fd
}

// start reads the rows of f, which has the feeder's layout.
func (fd *feeder) start(f *record.File) {
	fd.file = f
	fd.wg.Go(fd.run)
}

func (fd *feeder) stop() {
	close(fd.quit)
	fd.wg.Wait()
}

// run reads the recording, again and again with loop, until the end, an
// error or stop.
func (fd *feeder) run() {
	var lastDT int64
	for {
		rows := fd.file.Rows()
		err := fd.pass(rows, &lastDT)
		rows.Close()
		if err == nil || !errors.Is(err, io.EOF) || !fd.loop {
			return
		}
		lastDT = max(lastDT, loopSeam)
	}
}

// pass reads the rows once. It returns io.EOF after handing over the
// batch that ends them, nil on stop, or the read error it handed over.
func (fd *feeder) pass(rows *record.Rows, lastDT *int64) error {
	var prevT, prevP int64
	first := true
	for {
		var b *batch
		select {
		case <-fd.quit:
			return nil
		case b = <-fd.free:
		}
		b.n, b.err = 0, nil
		for b.n < len(b.dt) {
			row, err := rows.Next()
			if err != nil {
				b.err = err
				break
			}
			t := int64(fd.l.Raw(row, fd.pc.time))
			var p int64
			if fd.pc.producer >= 0 {
				p = int64(fd.l.Raw(row, fd.pc.producer)) * fd.pc.scale
			}
			dt := *lastDT
			if !first {
				dt = max(t-prevT, 0)
				if fd.pc.producer >= 0 {
					if dp := p - prevP; dp >= 0 && abs(dp-dt) <= clockSlip {
						dt = dp
					}
				}
			}
			if dt > maxRowGap {
				dt = maxRowGap
				fd.shortened.Add(1)
			}
			first, prevT, prevP, *lastDT = false, t, p, dt
			b.dt[b.n] = dt
			b.gap[b.n] = 0
			if fd.pc.lost >= 0 {
				b.gap[b.n] = uint32(fd.l.Raw(row, fd.pc.lost))
			}
			m := b.mem[b.n*fd.size : (b.n+1)*fd.size]
			for _, e := range fd.elems {
				putLE(m[e.off:e.off+e.size], fd.l.Raw(row, e.col))
			}
			b.n++
		}
		select {
		case <-fd.quit:
			return nil
		case fd.full <- b:
		}
		if b.err != nil {
			return b.err
		}
	}
}

// putLE stores the low len(dst) bytes of v, little-endian.
func putLE(dst []byte, v uint64) {
	switch len(dst) {
	case 1:
		dst[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(dst, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(dst, uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(dst, v)
	}
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
