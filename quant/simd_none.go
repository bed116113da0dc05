//go:build !(goexperiment.simd && amd64)

package quant

// Without GOEXPERIMENT=simd on amd64 there are no vector kernels.

func simdEncodeFloat32(*Quantizer, []byte, []float32, *int) bool { return false }
func simdEncodeFloat64(*Quantizer, []byte, []float64, *int) bool { return false }

// SIMD reports whether the slice kernels use vector instructions.
func SIMD() bool { return false }

func simdDecodeFloat64(*Quantizer, []float64, []byte) bool { return false }
func simdDecodeFloat32(*Quantizer, []float32, []byte) bool { return false }
