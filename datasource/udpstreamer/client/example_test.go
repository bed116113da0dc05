package client_test

import (
	"context"
	"fmt"
	"log"

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
