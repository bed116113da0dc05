// Package cref holds a C reference of streamerd's quantisation kernels that
// the Go kernels are benchmarked and checked against; it has no Go API.
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
package cref
