package record

import (
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/streamerd/streamerd/datasource"
	flatwire "github.com/streamerd/streamerd/datasource/flatudp/wire"
	"github.com/streamerd/streamerd/internal/flatenc"
)

// everyType is a FlatUDP signals string with every element type.
const everyType = "A:uint8,B:int8,C:uint16,D:int16,E:uint32,F:int32,G:uint64,H:int64,I:float32,J:float64[3],T:char8[4]"

// rawRow returns the raw elements of row i of a test stream: extremes of
// every type in the first rows, then random bits.
func rawRow(l *flatwire.Layout, i int, rng *rand.Rand) []uint64 {
	raw := make([]uint64, l.TotalElements())
	for k := range raw {
		t := elementType(l, k)
		var v uint64
		switch i {
		case 0:
			v = 0
		case 1:
			v = math.MaxUint64 // -1 or the largest unsigned
		default:
			v = rng.Uint64()
		}
		// Truncate to the width, sign-extend signed types, as DecodeRaw does.
		bits := 8 * t.Size()
		if bits < 64 {
			v &= 1<<bits - 1
			if signed(t) && v>>(bits-1) != 0 {
				v |= ^uint64(0) << bits
			}
		}
		raw[k] = v
	}
	return raw
}

// writeFlat records n rows of the test stream to path and returns the raw
// elements of each.
func writeFlat(t testing.TB, path string, n int, opts Options) (*Recorder, [][]uint64) {
	t.Helper()
	l, err := ForFlatUDP("127.0.0.1:1", everyType, "big")
	if err != nil {
		t.Fatal(err)
	}
	opts.Path = path
	r, err := Create(l, opts)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var rows [][]uint64
	t0 := time.Unix(1700000000, 0)
	for i := range n {
		raw := rawRow(l.flat, i, rng)
		d := flatenc.AppendRaw(nil, l.flat, raw, flatwire.Big)
		if err := r.Row().FlatUDP(d, t0.Add(time.Duration(i)*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		if err := r.Commit(); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, raw)
	}
	return r, rows
}

// readAll reads every row of a recording as raw bits, _time first.
func readAll(t *testing.T, path string) (*File, [][]uint64) {
	t.Helper()
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	rs := f.Rows()
	defer rs.Close()
	var out [][]uint64
	for {
		row, err := rs.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		raw := make([]uint64, len(row))
		for c := range row {
			raw[c] = f.Layout.Raw(row, c)
		}
		out = append(out, raw)
	}
	return f, out
}

func TestFlatRoundTripEveryType(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.parquet")
	r, rows := writeFlat(t, path, 2000, Options{RowGroupBytes: 16 << 10})
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + IndexSuffix); !os.IsNotExist(err) {
		t.Errorf("index left behind: %v", err)
	}
	st := r.Stats()
	if st.Rows != 2000 || st.Kept != 2000 || st.Files != 1 || st.RowGroups < 10 {
		t.Errorf("stats %+v", st)
	}
	if fi, _ := os.Stat(path); uint64(fi.Size()) != st.Bytes {
		t.Errorf("file of %d bytes, stats say %d", fi.Size(), st.Bytes)
	}
	f, got := readAll(t, path)
	defer f.Close()
	if f.Layout.Format != FlatUDP || f.NumRows != 2000 || len(got) != 2000 {
		t.Fatalf("format %s, %d rows, read %d", f.Layout.Format, f.NumRows, len(got))
	}
	t0 := time.Unix(1700000000, 0)
	for i, raw := range rows {
		if want := uint64(t0.Add(time.Duration(i) * time.Millisecond).UnixNano()); got[i][0] != want {
			t.Fatalf("row %d: time %d, want %d", i, got[i][0], want)
		}
		for k, v := range raw {
			if got[i][1+k] != v {
				t.Fatalf("row %d, column %s: %#x, want %#x", i, f.Layout.Columns[1+k].Name, got[i][1+k], v)
			}
		}
	}
}

// TestRepairKeepsCompleteRowGroups stops a recorder without its footer,
// as a kill does, and repairs the file.
func TestRepairKeepsCompleteRowGroups(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.parquet")
	r, rows := writeFlat(t, path, 1000, Options{RowGroupBytes: 16 << 10})
	kept := r.Stats().Kept
	if kept == 0 || kept == 1000 {
		t.Fatalf("kept %d rows of 1000; want some row groups written and some rows pending", kept)
	}
	// A partial row group after the last complete one, as a kill leaves.
	r.fw.f.Write([]byte("partial chunk bytes"))
	r.fw.abort()
	if _, err := Open(path); err == nil {
		t.Fatal("Open took a file without a footer")
	} else {
		t.Log(err)
	}
	rep, err := Repair(path)
	if err != nil {
		t.Fatal(err)
	}
	if uint64(rep.Rows) != kept || rep.Dropped != int64(len("partial chunk bytes")) {
		t.Errorf("repair %+v; want %d rows and the partial bytes cut", rep, kept)
	}
	f, got := readAll(t, path)
	defer f.Close()
	if uint64(len(got)) != kept || f.Meta[MetaRepaired] == "" {
		t.Fatalf("read %d rows after repair, want %d; note %q", len(got), kept, f.Meta[MetaRepaired])
	}
	for i := range got {
		if got[i][1] != rows[i][0] {
			t.Fatalf("row %d differs", i)
		}
	}
	if _, err := Repair(path); !errors.Is(err, ErrComplete) {
		t.Errorf("second repair: %v, want ErrComplete", err)
	}
}

func signed(t datasource.Type) bool {
	return t == datasource.Int8 || t == datasource.Int16 || t == datasource.Int32 || t == datasource.Int64
}
