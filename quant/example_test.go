package quant_test

import (
	"fmt"

	"github.com/streamerd/streamerd/quant"
)

// Example quantises float32 samples to uint16 codes over -10..10 V, as a
// UDPStreamer signal with QuantizedType quant.Uint16 travels, and decodes
// them as a client does: within half a step of the input, clamped to the
// range, NaN as RangeMin.
func Example() {
	q, err := quant.New(quant.Uint16, -10, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	in := []float32{-10, 0, 2.5, 10, 12, float32(nanF())}
	codes := make([]byte, len(in)*q.WireType().Size())
	nans := q.EncodeFloat32(codes, in)
	out := make([]float64, len(in))
	q.DecodeFloat64(out, codes)
	for i := range in {
		fmt.Printf("%g → %.4f\n", in[i], out[i])
	}
	fmt.Println("NaN inputs:", nans, "step:", fmt.Sprintf("%.6f", q.Step()))
	_, err = quant.New(quant.Int8, 1, 1)
	fmt.Println(err)
	// Output:
	// -10 → -10.0000
	// 0 → 0.0002
	// 2.5 → 2.4999
	// 10 → 10.0000
	// 12 → 10.0000
	// NaN → -10.0000
	// NaN inputs: 1 step: 0.000305
	// quant: invalid range: RangeMin 1 must be less than RangeMax 1
}

func nanF() float64 {
	var z float64
	return z / z
}
