//go:build !(goexperiment.simd && amd64)

package quant

// Without GOEXPERIMENT=simd on amd64 there are no vector kernels.

const simdBuild = false

func simdSupported(Kernel) bool { return false }

func simdEncodeFloat32(Kernel, *Quantizer, []byte, []float32, *int) bool { return false }
func simdEncodeFloat64(Kernel, *Quantizer, []byte, []float64, *int) bool { return false }
func simdDecodeFloat64(Kernel, *Quantizer, []float64, []byte) bool       { return false }
func simdDecodeFloat32(Kernel, *Quantizer, []float32, []byte) bool       { return false }
