package cref

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/quant"
)

const n = 1000

type flavor struct{ name, flags string }

var flavors = []flavor{
	{"O3-native", "-O3 -march=native"},
	{"O2-scalar", "-O2 -fno-tree-vectorize"},
}

type cResult struct {
	ns  float64 // ns per sample
	sum uint64  // FNV-1a of the output bytes
}

// runC compiles quant.c with fl and returns its results by pair name
// ("f32-uint8" ...). It skips tb when there is no C compiler.
func runC(tb testing.TB, fl flavor) map[string]cResult {
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
	out, err := exec.Command(bin).Output()
	if err != nil {
		tb.Fatalf("%s: %v", bin, err)
	}
	res := make(map[string]cResult)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			tb.Fatalf("bad line %q", sc.Text())
		}
		ns, err1 := strconv.ParseFloat(f[1], 64)
		sum, err2 := strconv.ParseUint(f[2], 16, 64)
		if err1 != nil || err2 != nil {
			tb.Fatalf("bad line %q", sc.Text())
		}
		res[f[0]] = cResult{ns, sum}
	}
	if len(res) != 8 {
		tb.Fatalf("C program printed %d pairs, want 8:\n%s", len(res), out)
	}
	return res
}

// input is quant.c's input, computed the same way.
func input() ([]float64, []float32) {
	s64, s32 := make([]float64, n), make([]float32, n)
	for i := range s64 {
		s64[i] = -1.1 + 2.2*float64((i*7919)%n)/n
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

type pair struct {
	name string
	w    quant.WireType
	f32  bool
}

func pairs() []pair {
	var ps []pair
	for _, f32 := range []bool{true, false} {
		for _, w := range []quant.WireType{quant.Uint8, quant.Int8, quant.Uint16, quant.Int16} {
			src := "f64"
			if f32 {
				src = "f32"
			}
			ps = append(ps, pair{src + "-" + w.String(), w, f32})
		}
	}
	return ps
}

// encode runs the selected Go kernel of p.
func encodePortable(q *quant.Quantizer, p pair, dst []byte, s64 []float64, s32 []float32) int {
	if p.f32 {
		return q.EncodeFloat32Portable(dst, s32)
	}
	return q.EncodeFloat64Portable(dst, s64)
}

func encode(q *quant.Quantizer, p pair, dst []byte, s64 []float64, s32 []float32) int {
	if p.f32 {
		return q.EncodeFloat32(dst, s32)
	}
	return q.EncodeFloat64(dst, s64)
}

// TestMatchesC requires the Go kernels to produce the C reference's bytes.
func TestMatchesC(t *testing.T) {
	res := runC(t, flavors[1])
	s64, s32 := input()
	for _, p := range pairs() {
		q, err := quant.New(p.w, -1, 1)
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]byte, n*p.w.Size())
		encode(&q, p, dst, s64, s32)
		if got, want := fnv(dst), res[p.name].sum; got != want {
			t.Errorf("%s: Go output checksum %016x, C %016x", p.name, got, want)
		}
	}
}

var sink int

// BenchmarkVsC times the Go kernels of every pair and reports them beside
// the C reference of each flavor: go-ns/elem, c-ns/elem and go/c. The
// selected kernel (SIMD when built with GOEXPERIMENT=simd on an AVX-512 CPU)
// is VsC/<flavor>/<pair>; the portable Go kernel is
// VsC/<flavor>/portable/<pair>, so one run shows both paths' ratios.
func BenchmarkVsC(b *testing.B) {
	s64, s32 := input()
	for _, fl := range flavors {
		res := runC(b, fl)
		for _, portable := range []bool{false, true} {
			for _, p := range pairs() {
				name := fmt.Sprintf("%s/%s", fl.name, p.name)
				if portable {
					name = fmt.Sprintf("%s/portable/%s", fl.name, p.name)
				}
				benchVsC(b, name, portable, p, res, s64, s32)
			}
		}
	}
}

func benchVsC(b *testing.B, name string, portable bool, p pair, res map[string]cResult, s64 []float64, s32 []float32) {
	b.Run(name, func(b *testing.B) {
		q, err := quant.New(p.w, -1, 1)
		if err != nil {
			b.Fatal(err)
		}
		dst := make([]byte, n*p.w.Size())
		b.ReportAllocs()
		if p.f32 {
			b.SetBytes(4 * n)
		} else {
			b.SetBytes(8 * n)
		}
		for b.Loop() {
			if portable {
				sink += encodePortable(&q, p, dst, s64, s32)
			} else {
				sink += encode(&q, p, dst, s64, s32)
			}
		}
		if fnv(dst) != res[p.name].sum {
			b.Fatalf("%s: Go output differs from C", p.name)
		}
		goNs := float64(b.Elapsed().Nanoseconds()) / float64(b.N*n)
		b.ReportMetric(goNs, "go-ns/elem")
		b.ReportMetric(res[p.name].ns, "c-ns/elem")
		b.ReportMetric(goNs/res[p.name].ns, "go/c")
	})
}
