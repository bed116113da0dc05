package quant

import "fmt"

// Kernel names one implementation of the slice kernels. Every kernel
// produces the same bytes and NaN counts for every input; they differ only
// in speed and in the CPUs that can run them.
type Kernel uint8

// Kernels, from the slowest.
const (
	KernelPortable Kernel = iota // plain Go: every build and CPU
	KernelAVX2                   // amd64 with AVX2 and FMA; GOEXPERIMENT=simd builds; encoders only
	KernelAVX512                 // amd64 with AVX-512 F, CD, BW, DQ and VL; GOEXPERIMENT=simd builds
)

// String returns "portable", "avx2" or "avx512".
func (k Kernel) String() string {
	if int(k) >= len(kernelNames) {
		return fmt.Sprintf("Kernel(%d)", uint8(k))
	}
	return kernelNames[k]
}

var kernelNames = [...]string{KernelPortable: "portable", KernelAVX2: "avx2", KernelAVX512: "avx512"}

// Supported reports whether this build can run k on this CPU.
func (k Kernel) Supported() bool { return k == KernelPortable || simdSupported(k) }

// selected is the kernel the encoders and decoders use: the best one this
// build and CPU support, chosen once at start-up. Tests lower it to check
// the slower kernels on this machine (useKernel); nothing else writes it.
var selected = bestKernel()

func bestKernel() Kernel {
	for _, k := range []Kernel{KernelAVX512, KernelAVX2} {
		if k.Supported() {
			return k
		}
	}
	return KernelPortable
}

// SelectedKernel returns the kernel [Quantizer.EncodeFloat32] and the other
// slice kernels use. (A kernel that has no decoder, such as AVX2, decodes
// with the portable one.)
func SelectedKernel() Kernel { return selected }

// EncodeFloat32With is [Quantizer.EncodeFloat32] with kernel k instead of
// the selected one, for tests and benchmarks that compare kernels; the
// output is the same. It panics if k is not Supported.
func (q *Quantizer) EncodeFloat32With(k Kernel, dst []byte, src []float32) (nans int) {
	mustSupport(k)
	if simdEncodeFloat32(k, q, dst, src, &nans) {
		return nans
	}
	return encodePortable(q, dst, src)
}

// EncodeFloat64With is [Quantizer.EncodeFloat64] with kernel k; see
// EncodeFloat32With.
func (q *Quantizer) EncodeFloat64With(k Kernel, dst []byte, src []float64) (nans int) {
	mustSupport(k)
	if simdEncodeFloat64(k, q, dst, src, &nans) {
		return nans
	}
	return encodePortable(q, dst, src)
}

func mustSupport(k Kernel) {
	if !k.Supported() {
		panic("quant: kernel " + k.String() + " is not supported by this build or CPU")
	}
}
