package frame

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

// checkWire parses every datagram of wire and checks it against layout and payload.
func checkWire(t *testing.T, l Layout, wire []byte, typ PacketType, counter uint32, payload []byte) {
	t.Helper()
	if len(wire) != l.WireSize() {
		t.Fatalf("wire %d bytes, want %d", len(wire), l.WireSize())
	}
	var got []byte
	off := 0
	for i := 0; i < l.Fragments; i++ {
		d := l.Datagram(wire, i)
		if &d[0] != &wire[off] {
			t.Fatalf("datagram %d not at offset %d", i, off)
		}
		if i < l.Fragments-1 && len(d) != l.SegmentSize() {
			t.Fatalf("datagram %d is %d bytes, segment size %d", i, len(d), l.SegmentSize())
		}
		if len(d) > l.SegmentSize() {
			t.Fatalf("datagram %d exceeds MaxPayloadSize", i)
		}
		h, n, err := ParseHeader(d)
		if err != nil {
			t.Fatalf("datagram %d: %v", i, err)
		}
		if h.Type != typ || h.Counter != counter || int(h.FragmentIdx) != i || int(h.TotalFragments) != l.Fragments {
			t.Fatalf("datagram %d header %+v", i, h)
		}
		got = append(got, d[n:]...)
		off += len(d)
	}
	if off != len(wire) || !bytes.Equal(got, payload) {
		t.Fatal("datagrams do not carry the payload")
	}
}

func TestSpecExample8016(t *testing.T) {
	if chunkSize(1400) != 1383 {
		t.Fatalf("chunk %d", chunkSize(1400))
	}
	n, err := NumFragments(8016, 1400)
	if err != nil || n != 6 {
		t.Fatalf("NumFragments = %d, %v", n, err)
	}
	l, _ := NewLayout(8016, 1400)
	if l.fragmentLen(5) != 8016-5*1383 || l.SegmentSize() != 1400 || l.WireSize() != 8016+6*17 {
		t.Fatalf("%+v", l)
	}
	payload := pattern(8016)
	checkWire(t, l, buildWire(l, Data, 42, payload), Data, 42, payload)
}

func TestSpecExampleBurst(t *testing.T) {
	sigs := burstSignals()
	size := DataPayloadSize(sigs)
	if size != 4012 {
		t.Fatalf("payload %d, want 4012", size)
	}
	n, err := NumFragments(size, 1400)
	if err != nil || n != 3 {
		t.Fatalf("NumFragments = %d, %v", n, err)
	}
	l, _ := NewLayout(size, 1400)
	if l.fragmentLen(0) != 1383 || l.fragmentLen(1) != 1383 || l.fragmentLen(2) != 4012-2*1383 {
		t.Fatalf("%+v", l)
	}
}

func TestChunkOfOne(t *testing.T) {
	if chunkSize(18) != 1 || chunkSize(17) != 0 || chunkSize(65507) != 65490 || chunkSize(65508) != 0 {
		t.Fatal("ChunkSize bounds")
	}
	l, err := NewLayout(100, 18)
	if err != nil || l.Fragments != 100 || l.SegmentSize() != 18 {
		t.Fatalf("%+v %v", l, err)
	}
	payload := pattern(100)
	checkWire(t, l, buildWire(l, Config, 1, payload), Config, 1, payload)
	if n, err := NumFragments(65535, 18); err != nil || n != 65535 {
		t.Fatalf("65535 fragments: %d %v", n, err)
	}
	if _, err := NumFragments(65536, 18); !errors.Is(err, errTooManyFragments) {
		t.Fatalf("65536 fragments: %v", err)
	}
	if _, err := NewLayout(65536, 18); !errors.Is(err, errTooManyFragments) {
		t.Fatalf("NewLayout 65536 fragments: %v", err)
	}
	if big := uint64(maxFragments*(MaxMaxPayloadSize-HeaderSize)) + 1; big <= math.MaxInt {
		if _, err := NumFragments(int(big-1), 65507); err != nil {
			t.Fatalf("largest payload: %v", err)
		}
		if _, err := NumFragments(int(big), 65507); !errors.Is(err, errTooManyFragments) {
			t.Fatalf("largest payload + 1: %v", err)
		}
	}
	if _, err := NumFragments(10, 17); !errors.Is(err, errMaxPayloadSize) {
		t.Fatal("MaxPayloadSize 17 accepted")
	}
	if n, _ := NumFragments(0, 1400); n != 1 {
		t.Fatal("empty payload needs one datagram")
	}
}

// TestInPlace places payloads straight into the wire buffer, across awkward
// chunk sizes, and checks WireOffset against where each byte landed.
func TestInPlace(t *testing.T) {
	for _, maxp := range []int{18, 19, 20, 21, 24, 25, 100, 1400, 4029, 65507} {
		for _, size := range []int{0, 1, 8, 9, 100, 4012, 8016} {
			l, err := NewLayout(size, maxp)
			if err != nil {
				t.Fatal(err)
			}
			payload := pattern(size)
			wire := make([]byte, l.WireSize())
			l.PutPayload(wire, payload)
			l.PutHeaders(wire, Data, 9)
			checkWire(t, l, wire, Data, 9, payload)
			back := make([]byte, size)
			if l.CopyPayload(back, wire); !bytes.Equal(back, payload) {
				t.Fatalf("max %d size %d: CopyPayload differs from the payload put", maxp, size)
			}
			for off := 0; off < size; off += max(1, size/50) {
				if wire[l.WireOffset(off)] != payload[off] {
					t.Fatalf("max %d size %d: WireOffset(%d)", maxp, size, off)
				}
			}
		}
	}
}

func TestPutPayloadSizePanics(t *testing.T) {
	l, _ := NewLayout(3, 20)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	l.PutPayload(make([]byte, l.WireSize()), []byte{1, 2})
}
