package frame_test

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer/internal/frame"
)

// Example shows one DATA update of the burst configuration placed into a
// preallocated wire buffer, then reassembled and decoded by a client.
func Example() {
	sigs := []frame.SignalInfo{
		{Name: "T0", Type: datasource.Uint32, NumRows: 1, NumCols: 1, TimeSignalIdx: frame.NoTimeSignal, Unit: "us"},
		{Name: "Ch1", Type: datasource.Float32, NumDimensions: 1, NumRows: 1, NumCols: 1000,
			TimeMode: datasource.FirstSample, SamplingRate: 1e6, TimeSignalIdx: 0, Unit: "V"},
	}
	if _, err := frame.AppendConfig(nil, sigs); err != nil { // the signals pass the protocol's rules
		panic(err)
	}

	// Server, at configuration time: plan the datagrams and allocate once.
	layout, err := frame.NewLayout(frame.DataPayloadSize(sigs), 1400)
	if err != nil {
		panic(err)
	}
	buf := make([]byte, layout.WireSize())

	// The raw payload of one cycle: the hrtTimestamp, then T0 and Ch1's 1000
	// float32 samples as they lie in signal memory.
	payload := binary.LittleEndian.AppendUint64(nil, 123456789)
	payload = binary.LittleEndian.AppendUint32(payload, 42)
	for k := 0; k < 1000; k++ {
		payload = binary.LittleEndian.AppendUint32(payload, math.Float32bits(float32(k)))
	}

	// Server, every update: the payload goes into its places around the
	// header gaps (a serialiser that converts as it goes writes at
	// layout.WireOffset instead), then the headers.
	layout.PutPayload(buf, payload)
	layout.PutHeaders(buf, frame.Data, 0)
	// buf is now ready for one sendmsg with UDP_SEGMENT = layout.SegmentSize(),
	// or for sendmmsg over layout.Datagram(buf, i) for every fragment i.

	// Client: reassemble, order, decode.
	r, _ := frame.NewReassembler(frame.ReassemblerConfig{Type: frame.Data, MaxPayload: 65536})
	slots, size := frame.AppendSlots(nil, sigs)
	r.SetExpectedPayload(size)
	var gate frame.SequenceGate
	for i := layout.Fragments - 1; i >= 0; i-- { // any order
		payload, counter, err := r.AddDatagram(layout.Datagram(buf, i))
		if err != nil || payload == nil {
			continue
		}
		if _, ok := gate.Accept(counter); !ok {
			continue
		}
		ts, _ := frame.ParseDataTimestamp(payload)
		ch1, _ := slots[1].Bytes(payload)
		fmt.Println(layout.Fragments, "datagrams,", len(payload), "bytes, hrt", ts, "Ch1 elements", len(ch1)/slots[1].ElemSize())
	}
	// Output: 3 datagrams, 4012 bytes, hrt 123456789 Ch1 elements 1000
}
