// Package quant maps float32 and float64 samples linearly onto the 8- and
// 16-bit wire codes of the UDPStreamer protocol and back.
//
// # Codes
//
// A [Quantizer] maps [RangeMin, RangeMax] onto the codes of one wire type:
// the code of a sample is that of its offset from RangeMin, scaled in
// float64, clamped to the range, rounded to the nearest code with ties to
// the even code; ±Inf go to the ends, NaN to the code of RangeMin and is
// counted (the exact rule is on Quantizer). [Quantizer.Code] computes it
// for one sample. The slice kernels give the same codes and NaN counts for
// every input, whatever their arithmetic.
//
// # Kernels
//
// The slice kernels have three implementations: portable Go,
// AVX2 for x86-64-v3 CPUs (encoders only) and AVX-512. The vector ones are
// built with GOEXPERIMENT=simd on amd64, and the best the CPU runs is
// chosen at start-up. The tests run every kernel the
// machine supports against the portable one, so a machine with AVX-512
// checks the AVX2 kernel too.
//
// # float32 samples in float32
//
// The portable kernel widens float32 samples to float64. The vector kernels
// compute them in float32, twice as many lanes per instruction: t32 =
// fl32(v*scale32 + bias32) in one fused multiply-add, clamped to [0, L],
// rounded. float32 alone does not give the float64 codes: near a tie
// between two codes the exact t can lie closer to the tie than float32
// resolves. For uint8 over [-1, 1] and v = -1e-10, float64 gives t =
// 127.49999998 and code 127, float32 gives t32 = 127.5 and, ties to even,
// code 128. (testdata/quant.c's C kernel that clamps, scales and rounds in
// float32 gets one code in 1000 wrong on the benchmark input for uint16.)
//
// So each lane is checked. [New] bounds |t64 - t32| by a window w (the
// rounding of scale32 and bias32, of the multiply-add, and of the float64
// arithmetic itself; float32.go gives the argument), and a vector with a
// lane whose t32 lies within w of a tie is encoded again from float64.
// Every other lane provably has the float64 code. When scale and bias are
// exact in float32, as for [-1, 1] or [-10, 10], w is half a float32 ulp of
// L: 2^-17 for 8-bit codes, 2^-9 for 16-bit ones, so for samples spread
// over the range a vector of 16 is redone with probability about 16*2w
// (6 % for 16-bit codes, 0.02 % for 8-bit ones). Where w would exceed 1/128
// (offset ranges such as [1e6, 1e6+1] for uint16, whose bias32 is off by
// whole steps) every kernel widens float32 samples to float64. A loop that
// has redone a third of its vectors (a signal sitting on a tie, such as 0
// over [-1, 1] for uint16) widens the rest.
//
// TestFloat32Exhaustive checks every float32 bit pattern against the
// portable kernel with the AVX-512 and AVX2 kernels, for each wire type
// over [-1, 1] and over [-2.7, 3.1] (8 x 2^32 samples, 3 minutes on the
// machine below):
//
//	GOEXPERIMENT=simd go test ./quant -run Exhaustive -v -quant.exhaustive
//
// TestFloat32Sampled checks the float32 values around ties, near zero and
// across the range for 132 quantizers in every test run, and fails if the
// window is halved.
//
// # Performance
//
// ns per sample, 1000 samples over [-1.1, 1.1] quantised over [-1, 1], on
// an Intel Xeon (Emerald Rapids) VM with 2 vCPUs shared with other work
// (load average 4 to 5), Go 1.26, GCC 12. Go and C side by side, both the
// median of the best of 15 batches of 2000 calls:
//
//	GOEXPERIMENT=simd go test -run '^$' -bench VsC -count 3 ./quant
//
//	kernel   samples  Go         C float32 kernel          ratio      C exact kernel    ratio
//	AVX-512  float32  0.18-0.23  0.19-0.23 (-march=native) 0.94-1.03  0.36-0.42         0.46-0.55
//	AVX-512  float64  0.28-0.31                                       0.33-0.37         0.75-0.94
//	AVX2     float32  0.27-0.33  0.21-0.26 (x86-64-v3)     1.17-1.35  1.5-1.6 (scalar)  0.18-0.22
//	AVX2     float64  0.45-0.48                                       1.5 (scalar)      0.30-0.32
//
// The C float32 kernel moves most between runs (0.21 to 0.30 ns for 8-bit
// codes with x86-64-v3 in three runs of the day, AVX2 ratios 1.09 to 1.35).
// GCC leaves the exact kernel scalar for x86-64-v3. The portable kernels
// run at 1.7-2.0 ns. Samples that all sit on ties, which the float32 loops
// widen after a few vectors, cost 0.35 (AVX-512), 0.57 (AVX2) and 1.8
// (portable) ns (medians of 100-call iterations):
//
//	GOEXPERIMENT=simd go test -run '^$' -bench 'Encode' ./quant
package quant
