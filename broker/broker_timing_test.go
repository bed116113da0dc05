package broker

import (
	"fmt"
	"testing"

	"github.com/streamerd/streamerd/datasource"
)

func BenchmarkExecute(b *testing.B) {
	for _, size := range []int{64, 4096, 65536} {
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			d := &memoryDataSource{sigs: []datasource.Signal{{Name: "A", Type: datasource.Uint8, NumberOfDimensions: 1, NumberOfElements: size}}}
			d.AllocateMemory()
			src := make([]byte, size)
			br, err := NewMemoryMapSynchronisedOutputBroker(d, []Output{Bind("A", src)})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				_ = br.Execute()
			}
		})
	}
}
