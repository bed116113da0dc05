package client_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/streamerd/streamerd/broker"
	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/datasource/udpstreamer/client"
)

// Example receives ten updates from a streamerd UDPStreamer on the default
// port and prints the first sample of every array with its time.
func Example() {
	c, err := client.Dial("127.0.0.1:44500", client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	cfg, err := c.Connect(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	defer c.Disconnect()
	var u client.Update // reused: Next is allocation-free once it is warm
	for range 10 {
		if err := c.Next(&u); err != nil {
			log.Fatal(err)
		}
		for i, s := range cfg.Signals {
			fmt.Printf("#%d lost %d %s[0] = %v at %.9f s\n", u.Counter, u.Lost, s.Name, u.Float64s(i)[0], u.Times(i)[0])
		}
	}
	st := c.Stats()
	fmt.Println(st.Updates, "updates,", st.Lost, "lost,", st.Stale, "stale")
}

// Example_inProcess receives three updates from a UDPStreamer in the same
// program: connect (CONNECT until a CONFIG), then Next in a loop with one
// reused Update, the values decoded bit-exact.
func Example_inProcess() {
	s, err := udpstreamer.New(udpstreamer.Config{Name: "S", Address: "127.0.0.1", Signals: []datasource.Signal{
		{Name: "Counter", Type: datasource.Uint32},
		{Name: "Wave", Type: datasource.Float64, NumberOfDimensions: 1, NumberOfElements: 2},
	}}, nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	if err := s.Start(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	counter, wave := make([]uint32, 1), make([]float64, 2)
	b, err := broker.NewMemoryMapSynchronisedOutputBroker(s, []broker.Output{broker.Bind("Counter", counter), broker.Bind("Wave", wave)})
	if err != nil {
		fmt.Println(err)
		return
	}

	c, err := client.Dial(s.LocalAddr().String(), client.Options{LocalAddr: "127.0.0.1:0"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	cfg, err := c.Connect(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, sig := range cfg.Signals {
		fmt.Println(sig.Name, sig.Type, sig.Elements())
	}
	var u client.Update
	for i := 1; i <= 3; i++ {
		counter[0], wave[0], wave[1] = uint32(i), float64(i)/4, -float64(i)
		if err := b.Execute(); err != nil {
			fmt.Println(err)
			return
		}
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if err := c.Next(&u); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(u.Float64s(0), u.Float64s(1), "lost", u.Lost)
	}
	// Output:
	// Counter uint32 1
	// Wave float64 2
	// [1] [0.25 -1] lost 0
	// [2] [0.5 -2] lost 0
	// [3] [0.75 -3] lost 0
}
