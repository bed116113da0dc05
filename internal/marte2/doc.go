// Package marte2 imports a MARTe2 application: it parses MARTe2's configuration language and maps the RealTimeApplication onto a streamerd configuration.
//
// Usage:
//
//  1. data, err := marte2.ReadFile("app.cfg") reads the file, refusing
//     one larger than MaxFileSize.
//  2. res, err := marte2.Import("app.cfg", data, marte2.Options{}) parses
//     it (Parse) and maps it. res.TOML is the streamerd configuration,
//     with the MARTe2 object paths in comments; res.Notes says, object by
//     object, what maps, what is approximated and what is skipped, with
//     positions (res.Warnings, res.WriteReport).
//  3. Load res.TOML with internal/config and build it with internal/app
//     to check it, as streamerd -check does; res.Source(line) gives the
//     MARTe2 position a line of the TOML comes from, for the loader's
//     errors.
//
// What maps: the RealTimeApplication's state (the one its StateMachine
// prepares first, else the first), its RealTimeThreads (CPUs, the GAM
// order), the LinuxTimer that paces each thread (Frequency, SleepNature,
// SleepPercentage; Counter and Time become a Timer GAM), WaveformSin (and
// WaveformChirp with equal frequencies) as a Waveform sine with TimeInput
// = "Time", ConstantGAM outputs as constant Waveforms (a char8 output
// with a string Default as a Text GAM), UDPSender as FlatUDP and
// UDPStreamer as UDPStreamer, signals in the same order with the same
// types and element counts. IOGAMs and GAMDataSources only move
// data: they are folded, each value's producer writing the imported
// datasource directly. Everything else is skipped with a note; a signal of
// an imported datasource fed by something skipped is an error unless
// Options.Partial.
//
// The TOML's [App] sets HTTPAddress (Options.HTTPAddress, by default
// DefaultHTTPAddress: a free loopback port picked when streamerd starts).
//
// Errors are *Error values ("file:line:col: message"); Import returns
// every mapping error found, sorted by position and each once, as Errors.
// Names and values must be UTF-8. Time and memory are linear in the
// file: the file is parsed in place, 16 bytes a definition, and the heap
// stays within ten times the file (TestImportMemory).
package marte2
