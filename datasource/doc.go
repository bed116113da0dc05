// Package datasource holds the MARTe2 DataSource contract, the signal model shared by every producer and the packed signal memory.
//
// A producer (UDPStreamer, RD100S, FlatUDP) is configured with an ordered list
// of Signal values, allocates one zeroed block in which the signals are packed
// in declaration order with no padding (MARTe2's MemoryDataSourceI), and is
// driven by the RT thread through a broker that copies GAM outputs into that
// block and calls Synchronise.
//
// Lifecycle, in MARTe2's order:
//
//	ds := udpstreamer.New(cfg, ...)   // configure signals (validated)
//	ds.AllocateMemory()               // one block, zeroed
//	ds.GetSignalMemoryBuffer(i)       // where the broker writes signal i
//	ds.PrepareNextState()             // open sockets, start the network thread
//	... RT thread: broker.Execute() → copy → ds.Synchronise() ...
//	ds.Close()                        // stop the network thread, close sockets
package datasource
