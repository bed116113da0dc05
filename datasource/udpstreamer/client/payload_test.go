package client

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/streamerd/streamerd/datasource"
)

// TestDecodeFromPayloads decodes a CONFIG and a DATA payload built by the
// wire package, as a program holding payloads (not datagrams) does.
func TestDecodeFromPayloads(t *testing.T) {
	infos := []datasource.Signal{
		{Name: "N", Type: datasource.Uint32},
		{Name: "V", Type: datasource.Float64, NumberOfDimensions: 1, NumberOfElements: 2},
	}
	cfg := parsedConfig(t, infos)
	p := binary.LittleEndian.AppendUint64(nil, 1234)
	p = binary.LittleEndian.AppendUint32(p, 7)
	p = binary.LittleEndian.AppendUint64(p, math.Float64bits(1.5))
	p = binary.LittleEndian.AppendUint64(p, math.Float64bits(-2))
	var u Update
	if err := u.Decode(cfg, 3, 1, p); err != nil {
		t.Fatal(err)
	}
	if u.HRT != 1234 || u.Counter != 3 || u.Lost != 1 || u.Float64s(0)[0] != 7 || u.Float64s(1)[1] != -2 {
		t.Errorf("update %+v, values %v %v", u, u.Float64s(0), u.Float64s(1))
	}
	if err := u.Decode(cfg, 4, 0, p[:len(p)-1]); err == nil {
		t.Error("short payload decoded")
	}
}

// TestSkipsFromPayloads: decoded updates 1 ms apart, then 4 ms with no
// update lost (3 cycles skipped), then a lost one: Decode counts the
// cycles as Next does.
func TestSkipsFromPayloads(t *testing.T) {
	cfg := parsedConfig(t, []datasource.Signal{{Name: "N", Type: datasource.Uint32}})
	var u Update
	hrt, total := uint64(1e12), uint32(0)
	for k := range 40 {
		lost := uint32(0)
		switch k {
		case 30:
			hrt += 3e6
		case 35:
			hrt, lost = hrt+1e6, 1
		}
		hrt += 1e6
		p := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint64(nil, hrt), uint32(k))
		if err := u.Decode(cfg, uint32(k), lost, p); err != nil {
			t.Fatal(err)
		}
		total += u.Skipped
		if k == 30 && u.Skipped != 3 {
			t.Errorf("update 30: Skipped %d, want 3", u.Skipped)
		}
	}
	if total != 3 {
		t.Errorf("%d cycles skipped in all, want 3", total)
	}
}
