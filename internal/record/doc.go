// Package record keeps a stream as Parquet files and reads them back: one row per update, one column per signal element, loss flags, and the signal list in the file's key/value metadata.
//
// Usage:
//
//  1. Build the Layout of the stream: ForUDPStreamer from the CONFIG a
//     client received, ForRD100S, or ForFlatUDP from a signals string.
//  2. Open a Recorder with the Layout and Options (row groups flushed by
//     size and time, files rotated by size and duration).
//  3. For every update: fill the Recorder's Row (Row.UDPStreamer,
//     Row.RD100S, Row.FlatUDP) and Commit it. Nothing allocates per row.
//  4. Close writes the footer. A recorder killed before Close leaves its
//     last file with complete row groups and a sidecar index (".idx");
//     Repair rebuilds the footer from them.
//
// Open reads a recording back and checks it is one (format, signal list,
// columns and types), naming the file and what is wrong when it is not.
//
// Files are standard Parquet (format version 2): flat required columns,
// integers with their signedness and width, TIMESTAMP(NANOS) receive times,
// plain key/value strings; docs/recording.md describes the schema.
//
// Each row group is written by parquet-go into memory as a complete
// one-row-group file; the Recorder copies its column chunks to the
// recording, moves their offsets, and appends the row group's metadata to
// the sidecar index before it counts the rows as kept. The footer is
// written at Close from that index, so neither the writer's memory nor its
// footer depends on the length of the recording.
package record
