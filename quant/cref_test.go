package quant

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The C reference of the quantisation kernels, which the Go kernels are
// benchmarked and checked against.
//
// testdata/quant.c (in testdata so the go tool, without cgo, ignores it)
// holds two C kernels. The exact one does quant's float64 arithmetic, so
// its output must equal every Go kernel's (TestMatchesC). The float32 one
// is what a C programmer writes for float32 samples: clamp to the range
// (NaN to RangeMin), scale and round to nearest, all in float32. It is
// faster and not exact: near a tie between two codes float32 may pick the
// other code (one code in 1000 for uint16 on the benchmark input), which
// TestMatchesC reports.
//
// The tests compile quant.c with the system C compiler (cc) three times,
// each beside one Go kernel: "-O3 -march=native" (auto-vectorised, the best
// a compiler does here) beside the selected kernel, "-O3 -march=x86-64-v3"
// (AVX2 and FMA) beside the AVX2 kernel, "-O2 -fno-tree-vectorize" (scalar)
// beside the portable kernel; all with -ffp-contract=off so the exact
// kernel's arithmetic is Go's. The program times itself (best of 15 batches
// of 2000 calls on 1000 samples) and runs three times; BenchmarkVsC times the
// Go kernel the same way and reports the medians side by side. Without cc
// the tests skip and say so.

// crefN is the samples per call, as in testdata/quant.c.
const crefN = 1000

type crefFlavor struct {
	name, flags string
	kernel      kernel // the Go kernel timed beside it
	selected    bool   // kernel is the selected one (named without it)
}

// crefFlavors pairs each C build with the Go kernel it measures: the
// selected kernel (AVX-512 on a capable CPU) with the best the compiler
// does for this machine, the AVX2 kernel with the same C for x86-64-v3 (AVX2 and
// FMA), the portable kernel with scalar C.
var crefFlavors = []crefFlavor{
	{"O3-native", "-O3 -march=native", selected, true},
	{"O3-x86-64-v3", "-O3 -march=x86-64-v3", kernelAVX2, false},
	{"O2-scalar", "-O2 -fno-tree-vectorize", kernelPortable, false},
}

// cResult is one line of the C program.
type cResult struct {
	ns    float64 // ns per sample: the median over cRuns runs of the best of 15 batches of 2000 calls
	sum   uint64  // FNV-1a of the output bytes
	diffs int     // codes differing from the exact (float64) kernel's
}

// cRuns is how many times the C program runs: its figures are the median
// of the runs, as the Go figures are the median of the benchmark's
// iterations, so that one run disturbed by another process does not decide
// a ratio.
const cRuns = 3

// runC compiles quant.c with fl, runs it runs times and returns its
// results by kernel and pair ("f64/f32-uint8", "f32/f32-uint8" ...), with
// the median time. It skips tb when there is no C compiler or it does not
// know the flavor's flags.
func runC(tb testing.TB, fl crefFlavor, runs int) map[string]cResult {
	tb.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		tb.Skipf("skipped: no C compiler: %v", err)
	}
	bin := filepath.Join(tb.TempDir(), "quant-"+fl.name)
	args := append(strings.Fields(fl.flags), "-ffp-contract=off", "-o", bin, filepath.Join("testdata", "quant.c"))
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		tb.Skipf("skipped: cc %s failed: %v\n%s", strings.Join(args, " "), err, out)
	}
	res := make(map[string]cResult)
	times := make(map[string][]float64)
	for range runs {
		out, err := exec.Command(bin).Output()
		if err != nil {
			tb.Fatalf("%s: %v", bin, err)
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			key, r := parseCLine(tb, sc.Text())
			if old, ok := res[key]; ok && (old.sum != r.sum || old.diffs != r.diffs) {
				tb.Fatalf("%s: output changed between runs", key)
			}
			res[key] = r
			times[key] = append(times[key], r.ns)
		}
	}
	if len(res) != 12 {
		tb.Fatalf("C program printed %d results, want 12", len(res))
	}
	for key, r := range res {
		t := times[key]
		slices.Sort(t)
		r.ns = t[len(t)/2]
		res[key] = r
	}
	return res
}

// parseCLine parses "<kernel> <pair> <ns> <sum> <diffs>".
func parseCLine(tb testing.TB, line string) (string, cResult) {
	f := strings.Fields(line)
	if len(f) != 5 {
		tb.Fatalf("bad line %q", line)
	}
	ns, err1 := strconv.ParseFloat(f[2], 64)
	sum, err2 := strconv.ParseUint(f[3], 16, 64)
	diffs, err3 := strconv.Atoi(f[4])
	if err1 != nil || err2 != nil || err3 != nil {
		tb.Fatalf("bad line %q", line)
	}
	return f[0] + "/" + f[1], cResult{ns, sum, diffs}
}

// crefInput is quant.c's input, computed the same way.
func crefInput() ([]float64, []float32) {
	s64, s32 := make([]float64, crefN), make([]float32, crefN)
	for i := range s64 {
		s64[i] = -1.1 + 2.2*float64((i*7919)%crefN)/crefN
		s32[i] = float32(s64[i])
	}
	return s64, s32
}

func fnv(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

type crefPair struct {
	name string
	w    WireType
	f32  bool
}

func crefPairs() []crefPair {
	var ps []crefPair
	for _, f32 := range []bool{true, false} {
		for _, w := range []WireType{Uint8, Int8, Uint16, Int16} {
			src := "f64"
			if f32 {
				src = "f32"
			}
			ps = append(ps, crefPair{src + "-" + w.String(), w, f32})
		}
	}
	return ps
}

// crefEncode runs Go kernel k on p's input.
func crefEncode(k kernel, q *Quantizer, p crefPair, dst []byte, s64 []float64, s32 []float32) int {
	if p.f32 {
		return q.encodeFloat32With(k, dst, s32)
	}
	return q.encodeFloat64With(k, dst, s64)
}

// TestMatchesC requires every Go kernel to produce the bytes of the C
// reference's float64 kernels, and reports how many codes C's float32
// kernels get wrong on the same input.
func TestMatchesC(t *testing.T) {
	res := runC(t, crefFlavors[2], 1)
	s64, s32 := crefInput()
	for _, k := range []kernel{kernelPortable, kernelAVX2, kernelAVX512} {
		if !k.supported() {
			continue
		}
		for _, p := range crefPairs() {
			q, err := New(p.w, -1, 1)
			if err != nil {
				t.Fatal(err)
			}
			dst := make([]byte, crefN*p.w.Size())
			crefEncode(k, &q, p, dst, s64, s32)
			if got, want := fnv(dst), res["f64/"+p.name].sum; got != want {
				t.Errorf("%v %s: Go output checksum %016x, C %016x", k, p.name, got, want)
			}
		}
	}
	for _, p := range crefPairs()[:4] {
		t.Logf("C float32 arithmetic, %s: %d of %d codes differ from the float64 ones", p.name, res["f32/"+p.name].diffs, crefN)
	}
}

var crefSink int

// Go timings are taken as C's are: the best of 15 batches of 2000 calls.
// One benchmark iteration is one such measurement; the reported go-ns/elem
// is the median over the iterations.
const (
	crefBatches = 15
	crefCalls   = 2000
)

// BenchmarkVsC times a Go kernel beside the C reference of each flavor
// (see crefFlavors): go-ns/elem, c-ns/elem (the C float64 kernel, exact) and
// go/c; for float32 samples also c32-ns/elem (the C float32 kernel, not
// exact) and go/c32. The selected kernel is VsC/<flavor>/<pair>, another
// kernel VsC/<flavor>/<kernel>/<pair>.
func BenchmarkVsC(b *testing.B) {
	s64, s32 := crefInput()
	for _, fl := range crefFlavors {
		if !fl.kernel.supported() {
			b.Run(fl.name, func(b *testing.B) { b.Skipf("skipped: Go kernel %v not supported here", fl.kernel) })
			continue
		}
		res := runC(b, fl, cRuns)
		for _, p := range crefPairs() {
			name := fmt.Sprintf("%s/%s/%s", fl.name, fl.kernel, p.name)
			if fl.selected {
				name = fmt.Sprintf("%s/%s", fl.name, p.name)
			}
			b.Run(name, func(b *testing.B) { benchVsC(b, fl.kernel, p, res, s64, s32) })
		}
	}
}

func benchVsC(b *testing.B, k kernel, p crefPair, res map[string]cResult, s64 []float64, s32 []float32) {
	q, err := New(p.w, -1, 1)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]byte, crefN*p.w.Size())
	b.ReportAllocs()
	if p.f32 {
		b.SetBytes(4 * crefN * crefBatches * crefCalls)
	} else {
		b.SetBytes(8 * crefN * crefBatches * crefCalls)
	}
	bests := make([]float64, 0, 1<<12)
	for b.Loop() {
		best := time.Duration(1 << 62)
		for range crefBatches {
			start := time.Now()
			for range crefCalls {
				crefSink += crefEncode(k, &q, p, dst, s64, s32)
			}
			best = min(best, time.Since(start))
		}
		if len(bests) < cap(bests) {
			bests = append(bests, float64(best.Nanoseconds())/(crefCalls*crefN))
		}
	}
	if fnv(dst) != res["f64/"+p.name].sum {
		b.Fatalf("%s: Go output differs from C", p.name)
	}
	slices.Sort(bests)
	goNs := bests[len(bests)/2]
	c := res["f64/"+p.name].ns
	b.ReportMetric(goNs, "go-ns/elem")
	b.ReportMetric(c, "c-ns/elem")
	b.ReportMetric(goNs/c, "go/c")
	if p.f32 {
		c32 := res["f32/"+p.name].ns
		b.ReportMetric(c32, "c32-ns/elem")
		b.ReportMetric(goNs/c32, "go/c32")
	}
}
