package frame

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/quant"
)

// burstSignals is the burst example of docs/udpstreamer.md.
func burstSignals() []SignalInfo {
	return []SignalInfo{
		{Name: "T0", Type: datasource.Uint32, NumRows: 1, NumCols: 1, RangeMax: 1, TimeSignalIdx: NoTimeSignal, Unit: "us"},
		{Name: "Ch1", Type: datasource.Float32, NumDimensions: 1, NumRows: 1, NumCols: 1000, RangeMax: 1,
			TimeMode: datasource.FirstSample, SamplingRate: 1e6, TimeSignalIdx: 0, Unit: "V"},
	}
}

// scalarSignals is the minimal example of docs/udpstreamer.md.
func scalarSignals() []SignalInfo {
	return []SignalInfo{
		{Name: "Counter", Type: datasource.Uint32, NumRows: 1, NumCols: 1, RangeMax: 1, TimeSignalIdx: NoTimeSignal},
		{Name: "Voltage", Type: datasource.Float32, Quant: quant.Uint16, NumRows: 1, NumCols: 1, RangeMin: -10, RangeMax: 10, TimeSignalIdx: NoTimeSignal, Unit: "V"},
	}
}

func zeros(n int) []byte { return make([]byte, n) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestConfigGolden(t *testing.T) {
	want := cat(
		[]byte{0x02, 0x00, 0x00, 0x00}, // numSignals = 2
		// record 0: T0
		[]byte{'T', '0'}, zeros(62), // name[64]
		[]byte{0x04},                         // typeCode uint32
		[]byte{0x00},                         // quantType none
		[]byte{0x00},                         // numDimensions 0
		[]byte{0x01, 0x00, 0x00, 0x00},       // numRows 1
		[]byte{0x01, 0x00, 0x00, 0x00},       // numCols 1
		[]byte{0, 0, 0, 0, 0, 0, 0, 0},       // rangeMin 0.0
		[]byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, // rangeMax 1.0
		[]byte{0x00},                         // timeMode datasource.PacketTime
		[]byte{0, 0, 0, 0, 0, 0, 0, 0},       // samplingRate 0.0
		[]byte{0xff, 0xff, 0xff, 0xff},       // timeSignalIdx none
		[]byte{'u', 's'}, zeros(30),          // unit[32]
		// record 1: Ch1
		[]byte{'C', 'h', '1'}, zeros(61),
		[]byte{0x08},                   // float32
		[]byte{0x00},                   // none
		[]byte{0x01},                   // 1-D
		[]byte{0x01, 0x00, 0x00, 0x00}, // numRows 1
		[]byte{0xe8, 0x03, 0x00, 0x00}, // numCols 1000
		[]byte{0, 0, 0, 0, 0, 0, 0, 0},
		[]byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f},
		[]byte{0x02},                               // datasource.FirstSample
		[]byte{0, 0, 0, 0, 0x80, 0x84, 0x2e, 0x41}, // 1e6
		[]byte{0x00, 0x00, 0x00, 0x00},             // timeSignalIdx 0
		[]byte{'V'}, zeros(31),
	)
	if len(want) != 4+2*configRecordSize {
		t.Fatalf("golden is %d bytes", len(want))
	}
	got, err := AppendConfig([]byte{0xAA}, burstSignals())
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 0xAA || !bytes.Equal(got[1:], want) {
		t.Fatalf("AppendConfig =\n% x\nwant\n% x", got[1:], want)
	}
	sigs, err := ParseConfig(want)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sigs, burstSignals()) {
		t.Fatalf("ParseConfig = %+v", sigs)
	}
}

func TestConfigQuantisedGolden(t *testing.T) {
	b, err := AppendConfig(nil, scalarSignals())
	if err != nil {
		t.Fatal(err)
	}
	r := b[4+configRecordSize:]
	want := cat([]byte{0x08, 0x03, 0x00}, []byte{1, 0, 0, 0}, []byte{1, 0, 0, 0},
		[]byte{0, 0, 0, 0, 0, 0, 0x24, 0xc0}, []byte{0, 0, 0, 0, 0, 0, 0x24, 0x40})
	if !bytes.Equal(r[64:91], want) {
		t.Fatalf("record 1 [64:91] = % x, want % x", r[64:91], want)
	}
	sigs, err := ParseConfig(b)
	if err != nil || !reflect.DeepEqual(sigs, scalarSignals()) {
		t.Fatalf("%+v %v", sigs, err)
	}
}

func TestNameAndUnitLimits(t *testing.T) {
	long := string(bytes.Repeat([]byte{'n'}, maxNameLen))
	sigs := []SignalInfo{{Name: long, Type: datasource.Uint8, NumRows: 1, NumCols: 1, TimeSignalIdx: NoTimeSignal, Unit: long[:maxUnitLen]}}
	b, err := AppendConfig(nil, sigs)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := ParseConfig(b); err != nil || back[0].Name != long || back[0].Unit != long[:maxUnitLen] {
		t.Fatalf("%v", err)
	}
	sigs[0].Name = long + "x"
	if _, err := AppendConfig(nil, sigs); !errors.Is(err, ErrConfig) {
		t.Fatalf("64-byte name: %v", err)
	}
	sigs[0].Name, sigs[0].Unit = "a", long[:maxUnitLen+1]
	if _, err := AppendConfig(nil, sigs); !errors.Is(err, ErrConfig) {
		t.Fatalf("32-byte unit: %v", err)
	}
}

// TestSignalErrorsNameTheirParameter: every broken rule of a set comes
// back, each naming its signal and the parameter a configuration spells.
func TestSignalErrorsNameTheirParameter(t *testing.T) {
	sigs := burstSignals()
	sigs[0].Unit = strings.Repeat("u", maxUnitLen+1)
	sigs[1].Quant, sigs[1].RangeMin, sigs[1].RangeMax = quant.Int16, 1, 1
	sigs[1].SamplingRate = 0
	var got []string
	for _, e := range signalErrors(sigs) {
		if !errors.Is(e, ErrConfig) || e.Name != sigs[e.Index].Name {
			t.Errorf("%v: not an ErrConfig of its signal", e)
		}
		got = append(got, fmt.Sprintf("%d %s", e.Index, e.Field))
	}
	if want := []string{"0 Unit", "1 RangeMax", "1 SamplingRate"}; !slices.Equal(got, want) {
		t.Errorf("errors at %v, want %v", got, want)
	}
	if err := validateSignals(sigs); err == nil || !strings.Contains(err.Error(), `signal 0 ("T0"): Unit: at most 31 bytes`) {
		t.Errorf("ValidateSignals = %v, want the first of them", err)
	}
}

// TestChar8Refused: a CONFIG has no code for char8, and says what to do.
func TestChar8Refused(t *testing.T) {
	sigs := burstSignals()
	sigs[1].Type = datasource.Char8
	errs := signalErrors(sigs)
	if len(errs) != 1 || errs[0].Field != "Type" || !strings.Contains(errs[0].Error(), "char8 has no UDPStreamer type code") {
		t.Errorf("SignalErrors = %v", errs)
	}
}

func TestValidateSignalsErrors(t *testing.T) {
	type mod func([]SignalInfo) []SignalInfo
	cases := map[string]mod{
		"no signals":          func(s []SignalInfo) []SignalInfo { return nil },
		"empty name":          func(s []SignalInfo) []SignalInfo { s[0].Name = ""; return s },
		"NUL in name":         func(s []SignalInfo) []SignalInfo { s[0].Name = "a\x00b"; return s },
		"NUL in unit":         func(s []SignalInfo) []SignalInfo { s[0].Unit = "\x00"; return s },
		"duplicate name":      func(s []SignalInfo) []SignalInfo { s[1].Name = "T0"; return s },
		"type 10 (char8)":     func(s []SignalInfo) []SignalInfo { s[0].Type = datasource.Char8; return s },
		"type 11":             func(s []SignalInfo) []SignalInfo { s[0].Type = 11; return s },
		"quant 5":             func(s []SignalInfo) []SignalInfo { s[1].Quant = 5; return s },
		"quant on uint32":     func(s []SignalInfo) []SignalInfo { s[0].Quant = quant.Int16; s[0].RangeMin = -1; return s },
		"quant empty range":   func(s []SignalInfo) []SignalInfo { s[1].Quant = quant.Int8; s[1].RangeMin = 1; return s },
		"quant NaN range":     func(s []SignalInfo) []SignalInfo { s[1].Quant = quant.Int8; s[1].RangeMin = math.NaN(); return s },
		"quant Inf range":     func(s []SignalInfo) []SignalInfo { s[1].Quant = quant.Int8; s[1].RangeMax = math.Inf(1); return s },
		"scalar rows 0":       func(s []SignalInfo) []SignalInfo { s[0].NumRows = 0; return s },
		"scalar cols 2":       func(s []SignalInfo) []SignalInfo { s[0].NumCols = 2; return s },
		"vector rows 2":       func(s []SignalInfo) []SignalInfo { s[1].NumRows = 2; return s },
		"vector cols 0":       func(s []SignalInfo) []SignalInfo { s[1].NumCols = 0; return s },
		"matrix rows 0":       func(s []SignalInfo) []SignalInfo { s[1].NumDimensions = 2; s[1].NumRows = 0; return s },
		"3 dimensions":        func(s []SignalInfo) []SignalInfo { s[1].NumDimensions = 3; return s },
		"too large":           func(s []SignalInfo) []SignalInfo { s[1].NumDimensions = 2; s[1].NumRows = 1 << 31; return s },
		"time mode 4":         func(s []SignalInfo) []SignalInfo { s[1].TimeMode = 4; return s },
		"PacketTime with idx": func(s []SignalInfo) []SignalInfo { s[0].TimeSignalIdx = 1; return s },
		"idx out of range":    func(s []SignalInfo) []SignalInfo { s[1].TimeSignalIdx = 2; return s },
		"idx none":            func(s []SignalInfo) []SignalInfo { s[1].TimeSignalIdx = NoTimeSignal; return s },
		"idx self":            func(s []SignalInfo) []SignalInfo { s[1].TimeSignalIdx = 1; return s },
		"FirstSample rate 0":  func(s []SignalInfo) []SignalInfo { s[1].SamplingRate = 0; return s },
		"negative rate":       func(s []SignalInfo) []SignalInfo { s[0].SamplingRate = -1; return s },
		"NaN rate":            func(s []SignalInfo) []SignalInfo { s[1].SamplingRate = math.NaN(); return s },
		"FullArray mismatch":  func(s []SignalInfo) []SignalInfo { s[1].TimeMode = datasource.FullArray; return s },
		"LastSample vector ts": func(s []SignalInfo) []SignalInfo {
			s[0].TimeMode = datasource.LastSample
			s[0].TimeSignalIdx = 1
			s[0].SamplingRate = 1
			return s
		},
	}
	for name, m := range cases {
		sigs := m(burstSignals())
		if err := validateSignals(sigs); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: ValidateSignals = %v", name, err)
		}
		if b, err := AppendConfig([]byte{1}, sigs); err == nil || len(b) != 1 {
			t.Errorf("%s: AppendConfig accepted", name)
		}
	}
	ok := burstSignals()
	ok[1].TimeMode, ok[0].NumDimensions, ok[0].NumCols = datasource.FullArray, 1, 1000
	if err := validateSignals(ok); err != nil {
		t.Errorf("FullArray with 1000-element time signal: %v", err)
	}
}

func TestParseConfigErrors(t *testing.T) {
	good, err := AppendConfig(nil, burstSignals())
	if err != nil {
		t.Fatal(err)
	}
	mut := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	cases := map[string][]byte{
		"empty":          nil,
		"3 bytes":        good[:3],
		"zero signals":   []byte{0, 0, 0, 0},
		"count too big":  mut(func(b []byte) []byte { b[0] = 3; return b }),
		"count huge":     mut(func(b []byte) []byte { b[3] = 0xff; return b }),
		"truncated":      good[:len(good)-1],
		"trailing byte":  append(bytes.Clone(good), 0),
		"name no NUL":    mut(func(b []byte) []byte { copy(b[4:], bytes.Repeat([]byte{'x'}, 64)); return b }),
		"unit no NUL":    mut(func(b []byte) []byte { copy(b[4+104:], bytes.Repeat([]byte{'x'}, 32)); return b }),
		"type code 200":  mut(func(b []byte) []byte { b[4+64] = 200; return b }),
		"rows*cols == 0": mut(func(b []byte) []byte { b[4+configRecordSize+71] = 0; b[4+configRecordSize+72] = 0; return b }),
		"ts idx 2":       mut(func(b []byte) []byte { b[4+configRecordSize+100] = 2; return b }),
		"quant on int":   mut(func(b []byte) []byte { b[4+65] = 1; return b }),
	}
	for name, b := range cases {
		if s, err := ParseConfig(b); !errors.Is(err, ErrConfig) || s != nil {
			t.Errorf("%s: ParseConfig = %v, %v", name, s, err)
		}
	}
	// Bytes after the NUL are ignored.
	b := mut(func(b []byte) []byte { b[4+10] = 'z'; return b })
	if _, err := ParseConfig(b); err != nil {
		t.Errorf("garbage after NUL: %v", err)
	}
}

func FuzzParseConfig(f *testing.F) {
	for _, sigs := range [][]SignalInfo{burstSignals(), scalarSignals()} {
		b, err := AppendConfig(nil, sigs)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		sigs, err := ParseConfig(b)
		if err != nil {
			if sigs != nil || !errors.Is(err, ErrConfig) {
				t.Fatalf("error %v with result", err)
			}
			return
		}
		if err := validateSignals(sigs); err != nil {
			t.Fatalf("parsed config fails validation: %v", err)
		}
		re, err := AppendConfig(nil, sigs)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseConfig(re)
		if err != nil || len(re) != len(b) || len(back) != len(sigs) {
			t.Fatalf("round trip: %v", err)
		}
		for i := range back {
			if back[i].Name != sigs[i].Name || back[i].Elements() != sigs[i].Elements() || back[i].WireBytes() != sigs[i].WireBytes() {
				t.Fatalf("round trip signal %d", i)
			}
		}
		n := DataTimestampSize
		for i := range sigs {
			n += sigs[i].WireBytes()
		}
		if n < DataTimestampSize+len(sigs) || uint64(n) > maxUpdateInt {
			t.Fatalf("DataPayloadSize %d", n)
		}
	})
}

// TestQuantizedWireType: a quantised signal's elements travel as the
// integer type its QuantizedType names; an unknown code leaves the type.
func TestQuantizedWireType(t *testing.T) {
	for q, want := range map[quant.WireType]datasource.Type{quant.None: datasource.Float64, quant.Uint8: datasource.Uint8, quant.Int8: datasource.Int8, quant.Uint16: datasource.Uint16, quant.Int16: datasource.Int16, 5: datasource.Float64} {
		if got := quantized(datasource.Float64, q); got != want {
			t.Errorf("quantized(float64, %v) = %v, want %v", q, got, want)
		}
	}
}

// TestRecordsAndSignals: the CONFIG records of valid signals convert back
// to the same signals, and a time signal named nowhere gets an index past
// the signals, which AppendConfig refuses.
func TestRecordsAndSignals(t *testing.T) {
	sigs := []datasource.Signal{
		{Name: "T0", Type: datasource.Uint32, Unit: "us"},
		{Name: "V", Type: datasource.Float32, NumberOfDimensions: 1, NumberOfElements: 8, QuantizedType: quant.Int16, RangeMin: -1, RangeMax: 1,
			TimeMode: datasource.LastSample, TimeSignal: "T0", SamplingRate: 1e3},
		{Name: "M", Type: datasource.Int8, NumberOfDimensions: 2, Rows: 2, Cols: 3, NumberOfElements: 6},
	}
	recs := Records(sigs)
	if _, err := AppendConfig(nil, recs); err != nil {
		t.Fatal(err)
	}
	if r := recs[2]; r.NumRows != 2 || r.NumCols != 3 || recs[1].TimeSignalIdx != 0 || recs[0].TimeSignalIdx != NoTimeSignal {
		t.Errorf("records %+v", recs)
	}
	if back := Signals(recs); !reflect.DeepEqual(back, sigs) {
		t.Errorf("back %+v\nwant %+v", back, sigs)
	}
	sigs[1].TimeSignal = "nowhere"
	if _, err := AppendConfig(nil, Records(sigs)); !errors.Is(err, ErrConfig) {
		t.Errorf("an unnamed time signal: %v", err)
	}
}
