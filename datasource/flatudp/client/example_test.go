package client_test

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/streamerd/streamerd/broker"
	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp"
	"github.com/streamerd/streamerd/datasource/flatudp/client"
	"github.com/streamerd/streamerd/datasource/flatudp/wire"
)

// Example receives the datagrams of a FlatUDP sender with the signals
// string the sender prints, and decodes them.
func Example() {
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := flatudp.New(flatudp.Config{
		Name: "Flat", Address: "127.0.0.1", Port: conn.LocalAddr().(*net.UDPAddr).Port,
		ExecutionMode: "RealTimeThread",
		Signals: []datasource.Signal{
			{Name: "Counter", Type: datasource.Uint32},
			{Name: "Wave", Type: datasource.Int16, NumberOfDimensions: 1, NumberOfElements: 3},
		},
	}, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	// The receiver's side: the signals string, as MARTe2's udpscope takes it.
	layout, err := wire.ParseLayout(s.SignalsString())
	if err != nil {
		fmt.Println(err)
		return
	}
	r := client.NewReceiver(conn, layout)
	defer r.Close()

	if err := s.Start(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	counter, wave := []uint32{7}, []int16{-1, 0, 1}
	b, err := broker.NewMemoryMapSynchronisedOutputBroker(s, []broker.Output{broker.Bind("Counter", counter), broker.Bind("Wave", wave)})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := b.Execute(); err != nil {
		fmt.Println(err)
		return
	}

	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	d, _, err := r.Read()
	if err != nil {
		fmt.Println(err)
		return
	}
	vals := make([]float64, layout.TotalElements())
	if err := layout.Decode(vals, d, wire.Little); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.SignalsString(), len(d), "bytes:", vals)
	// Output: Counter:uint32,Wave:int16[3] 10 bytes: [7 -1 0 1]
}
