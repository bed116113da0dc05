// Package datasource holds the MARTe2 DataSource contract and the signal model shared by every producer and its client.
//
// A producer (UDPStreamer, RD100S, FlatUDP) is configured with an ordered list
// of Signal values, allocates one zeroed block in which the signals are packed
// in declaration order with no padding (MARTe2's MemoryDataSourceI), and is
// driven by the RT thread through a broker that copies GAM outputs into that
// block and calls Synchronise.
//
// A Go program embedding a producer starts with docs/embedding.md: the
// lifecycle as a state table, which call runs on which goroutine, the
// errors, shutdown and restart, and what Synchronise costs. In short:
//
//	s, err := udpstreamer.New(cfg, nil, nil)  // validated; nil: a private metrics set, no logging
//	err = s.Start(ctx)                         // memory, socket, network thread; ctx done → Close
//	b, err := broker.NewMemoryMapSynchronisedOutputBroker(s,
//		[]broker.Output{broker.Bind("Voltage", voltage)}) // checked: name, type, count
//	err = b.Execute()                          // each cycle: copy + Synchronise
//	err = s.Close()                            // thread, socket and metrics released
//
// The daemon drives the same producers in MARTe2's order: AllocateMemory,
// GetSignalMemoryBuffer for each signal, Open, PrepareNextState,
// Synchronise once per cycle, Close.
package datasource
