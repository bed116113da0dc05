package quant

import "fmt"

// kernel names one implementation of the slice kernels. Every kernel
// produces the same bytes and NaN counts for every input; they differ only
// in speed and in the CPUs that can run them.
type kernel uint8

// Kernels, from the slowest.
const (
	kernelPortable kernel = iota // plain Go: every build and CPU
	kernelAVX2                   // amd64 with AVX2 and FMA; GOEXPERIMENT=simd builds; encoders only
	kernelAVX512                 // amd64 with AVX-512 F, CD, BW, DQ and VL; GOEXPERIMENT=simd builds
)

// String returns "portable", "avx2" or "avx512".
func (k kernel) String() string {
	if int(k) >= len(kernelNames) {
		return fmt.Sprintf("kernel(%d)", uint8(k))
	}
	return kernelNames[k]
}

var kernelNames = [...]string{kernelPortable: "portable", kernelAVX2: "avx2", kernelAVX512: "avx512"}

// supported reports whether this build can run k on this CPU.
func (k kernel) supported() bool { return k == kernelPortable || simdSupported(k) }

// selected is the kernel the encoders and decoders use: the best one this
// build and CPU support, chosen once at start-up. Tests lower it to check
// the slower kernels on this machine (useKernel); nothing else writes it.
var selected = bestKernel()

func bestKernel() kernel {
	for _, k := range []kernel{kernelAVX512, kernelAVX2} {
		if k.supported() {
			return k
		}
	}
	return kernelPortable
}

// encodeFloat32With is [Quantizer.EncodeFloat32] with kernel k instead of
// the selected one, for tests and benchmarks that compare kernels; the
// output is the same. It panics if k is not supported.
func (q *Quantizer) encodeFloat32With(k kernel, dst []byte, src []float32) (nans int) {
	mustSupport(k)
	if simdEncodeFloat32(k, q, dst, src, &nans) {
		return nans
	}
	return encodePortable(q, dst, src)
}

// encodeFloat64With is [Quantizer.EncodeFloat64] with kernel k; see
// encodeFloat32With.
func (q *Quantizer) encodeFloat64With(k kernel, dst []byte, src []float64) (nans int) {
	mustSupport(k)
	if simdEncodeFloat64(k, q, dst, src, &nans) {
		return nans
	}
	return encodePortable(q, dst, src)
}

func mustSupport(k kernel) {
	if !k.supported() {
		panic("quant: kernel " + k.String() + " is not supported by this build or CPU")
	}
}
