// Package cref holds a C reference of streamerd's quantisation kernels that
// the Go kernels are benchmarked and checked against; it has no Go API.
//
// testdata/quant.c (in testdata so the go tool, without cgo, ignores it)
// is compiled by the tests with the system C compiler (cc) twice:
// "-O3 -march=native" (auto-vectorised, the best a compiler does) and
// "-O2 -fno-tree-vectorize" (scalar), both with -ffp-contract=off so the
// arithmetic is the same as Go's. The program times itself (best of 15
// batches of 2000 calls on 1000 samples) and prints ns per sample and a
// checksum of its output, which must equal the Go kernels' output. Without
// cc the tests skip and say so.
package cref
