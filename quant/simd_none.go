//go:build !(goexperiment.simd && amd64)

package quant

// Without GOEXPERIMENT=simd on amd64 there are no vector kernels.

const simdBuild = false

func simdSupported(kernel) bool { return false }

func simdEncodeFloat32(kernel, *Quantizer, []byte, []float32, *int) bool { return false }
func simdEncodeFloat64(kernel, *Quantizer, []byte, []float64, *int) bool { return false }
func simdDecodeFloat64(kernel, *Quantizer, []float64, []byte) bool       { return false }
func simdDecodeFloat32(kernel, *Quantizer, []float32, []byte) bool       { return false }
