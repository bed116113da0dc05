package frame

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/streamerd/streamerd/datasource"
)

func TestDataSlots(t *testing.T) {
	sigs := append(burstSignals(), scalarSignals()...)
	sigs[3].Name = "V2" // keep names unique
	sigs[2].Name = "C2"
	slots, size := AppendSlots(nil, sigs)
	if size != DataPayloadSize(sigs) || size != 8+4+4000+4+2 {
		t.Fatalf("size %d", size)
	}
	want := []Slot{{8, 4, 1, datasource.Uint32}, {12, 4000, 1000, datasource.Float32}, {4012, 4, 1, datasource.Uint32}, {4016, 2, 1, datasource.Uint16}}
	for i, s := range slots {
		if s != want[i] {
			t.Fatalf("slot %d = %+v, want %+v", i, s, want[i])
		}
	}
	payload := make([]byte, size)
	binary.LittleEndian.PutUint64(payload, 123456789)
	binary.LittleEndian.PutUint16(payload[4016:], 0xBEEF)
	if ts, err := ParseDataTimestamp(payload); err != nil || ts != 123456789 {
		t.Fatal(ts, err)
	}
	b, err := slots[3].Bytes(payload)
	if err != nil || len(b) != 2 || binary.LittleEndian.Uint16(b) != 0xBEEF || cap(b) != 2 {
		t.Fatal(b, err)
	}
	if _, err := slots[3].Bytes(payload[:size-1]); !errors.Is(err, ErrDataLength) {
		t.Fatal("slot past end accepted")
	}
	if _, err := ParseDataTimestamp(payload[:7]); !errors.Is(err, ErrDataLength) {
		t.Fatal("7-byte timestamp accepted")
	}
}

// FuzzDataSlots decodes an arbitrary DATA payload against a CONFIG.
func FuzzDataSlots(f *testing.F) {
	cfg, _ := AppendConfig(nil, burstSignals())
	f.Add(cfg, make([]byte, 4012))
	cfg2, _ := AppendConfig(nil, scalarSignals())
	f.Add(cfg2, make([]byte, 14))
	f.Add(cfg2, make([]byte, 13))
	f.Fuzz(func(t *testing.T, config, payload []byte) {
		sigs, err := ParseConfig(config)
		if err != nil {
			return
		}
		slots, size := AppendSlots(nil, sigs)
		lengthOK := len(payload) == size
		if _, err := ParseDataTimestamp(payload); (err == nil) != (len(payload) >= 8) {
			t.Fatal("timestamp length check")
		}
		end := DataTimestampSize
		for i, s := range slots {
			if s.Offset != end || s.Len != sigs[i].WireBytes() || s.Len != s.Elements*s.ElemSize() {
				t.Fatalf("slot %d %+v", i, s)
			}
			end += s.Len
			b, err := s.Bytes(payload)
			if lengthOK && (err != nil || len(b) != s.Len) {
				t.Fatalf("slot %d of a full payload: %v", i, err)
			}
			if err == nil && len(b) != s.Len {
				t.Fatalf("slot %d wrong length", i)
			}
		}
		if end != size {
			t.Fatal("slots do not cover the payload")
		}
	})
}
