// Package bench holds the benchmarks that need more than one package (sustained throughput beside the kernel's loopback, RT wake-up beside cyclictest) and, in bench/report, the program that turns `go test -bench` output into bench/results.md.
//
// The benchmarks live in *_timing_test.go files; this file only names the
// package. See BENCHMARKS.md at the root of the repository for what each
// figure means and how to reproduce it.
package bench
