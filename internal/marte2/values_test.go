package marte2

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/internal/gam"
)

// TestCosineMatchesC measures how far the float64 Cosine of the imported
// testdata/udpsender.cfg is from MARTe2's WaveformGAM, as computed by the C
// reference ../gam/testdata/marte2_sine.c (MARTe2's algorithm with the
// system C library's sin) for Counter 1..20 000, and for 20 000 Counters
// with missed periods: no value is more than 2 units in the last place of
// the sine apart, and the share of values that differ at all is logged
// (docs/marte2.md quotes it). It skips without a C compiler.
func TestCosineMatchesC(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skipf("skipped: no C compiler: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "marte2_sine")
	if out, err := exec.Command(cc, "-O2", "-ffp-contract=off", "-o", bin, filepath.Join("..", "gam", "testdata", "marte2_sine.c"), "-lm").CombinedOutput(); err != nil {
		t.Skipf("skipped: cc failed: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "udpsender.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Import("udpsender.cfg", data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		GAMs []struct {
			Name                                string
			Amplitude, Frequency, Phase, Offset float64
		}
	}
	if err := toml.Unmarshal(res.TOML, &file); err != nil {
		t.Fatal(err)
	}
	var a, f, ph, o float64
	found := false
	for _, g := range file.GAMs {
		if g.Name == "CosineGAM" {
			a, f, ph, o, found = g.Amplitude, g.Frequency, g.Phase, g.Offset, true
		}
	}
	if !found {
		t.Fatalf("no CosineGAM in the imported TOML:\n%s", res.TOML)
	}
	consecutive := make([]uint32, 20000)
	for i := range consecutive {
		consecutive[i] = uint32(i + 1)
	}
	missed := []uint32{1, 2, 3}
	for i := 0; len(missed) < 20000; i++ {
		missed = append(missed, missed[len(missed)-1]+uint32(1+(i*7)%13))
	}
	for _, run := range []struct {
		name     string
		counters []uint32
	}{{"Counter 1..20000", consecutive}, {"20000 Counters with missed periods", missed}} {
		var in strings.Builder
		for _, c := range run.counters {
			fmt.Fprintln(&in, c*1000) // Time in µs at 1 kHz
		}
		cmd := exec.Command(bin, fmt.Sprint(a), fmt.Sprint(f), strconv.FormatFloat(ph, 'g', -1, 64), fmt.Sprint(o), "1")
		cmd.Stdin = strings.NewReader(in.String())
		ref, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		w, err := gam.NewWaveform("CosineGAM", gam.WaveformConfig{Shape: gam.Sine, Amplitude: a, Frequency: f, Phase: ph, Offset: o,
			Type: datasource.Float64, Elements: 1, TimeInput: true})
		if err != nil {
			t.Fatal(err)
		}
		var now uint32
		w.BindTime(&now)
		out := gam.Values[float64](w.Outputs()[0])
		sc := bufio.NewScanner(bytes.NewReader(ref))
		tol := 2 * math.Abs(a) * 0x1p-52 // 2 ulps of sin, scaled
		differ, worst := 0, 0.0
		for i, c := range run.counters {
			if !sc.Scan() {
				t.Fatalf("reference ended at cycle %d", i)
			}
			now = c * 1000
			if err := w.Execute(); err != nil {
				t.Fatal(err)
			}
			bits, err := strconv.ParseUint(strings.Fields(sc.Text())[0], 16, 64)
			if err != nil {
				t.Fatalf("cycle %d: reference %q", i, sc.Text())
			}
			d := math.Abs(out[0] - math.Float64frombits(bits))
			if d > tol {
				t.Fatalf("%s: Counter %d: %v, MARTe2 %v", run.name, c, out[0], math.Float64frombits(bits))
			}
			if d != 0 {
				differ++
				worst = max(worst, d)
			}
		}
		t.Logf("%s: %d of %d float64 values (%.1f %%) differ from MARTe2's, by at most %.2g", run.name, differ, len(run.counters),
			100*float64(differ)/float64(len(run.counters)), worst)
	}
}
