//go:build goexperiment.simd && amd64

package quant

import (
	"simd/archsimd"
	"unsafe"
)

// This file dispatches to the vector kernels, built with GOEXPERIMENT=simd:
// AVX-512 (avx512_amd64.go) and AVX2 (avx2_amd64.go). A kernel is run only
// on a CPU that has its instructions (simdSupported), so they are never
// reached elsewhere.

// simdBuild tells the tests that this build has the vector kernels.
const simdBuild = true

var (
	hasAVX512 = archsimd.X86.AVX512()
	hasAVX2   = archsimd.X86.AVX2() && archsimd.X86.FMA()
)

func simdSupported(k kernel) bool {
	return k == kernelAVX512 && hasAVX512 || k == kernelAVX2 && hasAVX2
}

func simdEncodeFloat32(k kernel, q *Quantizer, dst []byte, src []float32, nans *int) bool {
	return k == kernelAVX512 && avx512EncodeFloat32(q, dst, src, nans) ||
		k == kernelAVX2 && avx2EncodeFloat32(q, dst, src, nans)
}

func simdEncodeFloat64(k kernel, q *Quantizer, dst []byte, src []float64, nans *int) bool {
	return k == kernelAVX512 && avx512EncodeFloat64(q, dst, src, nans) ||
		k == kernelAVX2 && avx2EncodeFloat64(q, dst, src, nans)
}

func simdDecodeFloat64(k kernel, q *Quantizer, dst []float64, src []byte) bool {
	return k == kernelAVX512 && avx512DecodeFloat64(q, dst, src)
}

func simdDecodeFloat32(k kernel, q *Quantizer, dst []float32, src []byte) bool {
	return k == kernelAVX512 && avx512DecodeFloat32(q, dst, src)
}

// code is the type of one wire code. The vector loops are generic over it
// so that each instantiation knows the code size at compile time
// (codeSize): with the size in a variable, the AVX2 float32 loop ran at
// 0.41 ns per sample instead of 0.25.
type code interface{ uint8 | uint16 }

// codeSize returns the size of C, a constant in each instantiation.
func codeSize[C code]() int { return int(unsafe.Sizeof(C(0))) }

// bySize runs the instantiation of a vector loop for q's code size and
// stores its NaN count in *nans; it returns false for a zero Quantizer.
func bySize[F float](q *Quantizer, dst []byte, src []F, nans *int, loop8, loop16 func(*Quantizer, []byte, []F) int) bool {
	switch q.w.Size() {
	case 1:
		*nans = loop8(q, dst, src)
	case 2:
		*nans = loop16(q, dst, src)
	default:
		return false
	}
	return true
}

// widenRest reports whether a float32 loop that redid redone of its first
// done blocks in float64 should widen the rest of its samples instead: a
// redone block costs about as much as the float32 and float64 computations
// together, so from about half the blocks on widening everything is
// cheaper. A signal that sits on a tie between two codes, such as 0 over a
// range symmetric about 0 with an unsigned type, would be redone throughout
// (BenchmarkEncodeTies).
func widenRest(redone, done int) bool { return widen && redone >= 4 && 3*redone >= done }
