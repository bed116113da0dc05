// Package rd100s is the RD100S-ENC-UDP v1 encoder emulator: an output DataSource that sends the position of mapped signals as 36-byte packets on its own monotonic cadence, with operator-controlled degradations.
//
// A Go program embedding it follows docs/embedding.md, as for every
// producer: New, Start, a broker, Execute once per cycle, Close.
//
// Section numbers in this package's comments ("section 6") are those of
// docs/rd100s.md, which describes the protocol.
//
// # Data path
//
// The RT thread's share is Synchronise: take the FastLock, copy signal
// memory into the ready buffer, release. Nothing is posted: the network
// thread (pinned with CPUMask) emits on its own grid of rate_hz, from
// absolute CLOCK_MONOTONIC deadlines slept with clock_nanosleep(TIMER_ABSTIME),
// and at each tick copies the latest ready buffer under the same lock. The RT
// period and the emission cadence are independent; the latest value wins.
// The thread sets its timer slack to 1 ns so deadlines are not rounded up by
// the default 50 µs.
// A tick the thread wakes for more than a period late (a VM stall) is skipped
// and counted (ticks_missed_total); skipped ticks consume no seq, so the
// receiver sees a longer t_us step, not a gap.
//
// # Packet
//
// Every packet follows section 2: magic 0x5244, version 1, reserved fields
// zero. seq starts at FirstSeq and advances by one per tick, wrapping at
// 2^32. t_us is microseconds of CLOCK_MONOTONIC since PrepareNextState (the
// emitter's start), taken when the packet is built, so a jittered packet
// carries its real instant. Azimuth comes from a degrees or millidegrees
// signal (AzimuthUnit), rounded to nearest and wrapped into 0..359999
// (359.9996° sends 0, -0.5° sends 359500). Elevation is rounded the same way
// and passed through unclamped: values beyond ±90000 during an encoder fault
// are legal. Rates are in mdeg/s, from deg/s or mdeg/s signals (RateUnit);
// unmapped rates send 0. Elevation and rates saturate at the int32 range.
// The status word carries bits 0..5 from StatusSignal or the Config
// constants, SIM always set, and DEGRADED while any degradation is active.
// Until the first Synchronise there is no reading yet: AZ_VALID and
// EL_VALID are clear. A NaN or infinite float position or rate is no
// reading either: that axis is sent with its last good values and its VALID
// bit cleared, and counted (nonfinite_readings_total).
//
// # Degradations (section 6)
//
// Each has a key, used by Set, in errors, events and metrics. Per tick the
// emitter applies them in this order: seq jump, freeze, invalid, silence,
// burst, loss, duplication, reorder; jitter moves the tick itself.
//
//   - loss_probability p, loss_every_n N: the packet is dropped with
//     probability p, and the N-th, 2N-th ... packet reaching the loss stage
//     after N was set is dropped (both may be on). A lost packet consumes its
//     seq: the receiver sees a gap.
//   - burst_loss_ms D: everything is dropped for D starting now; then the
//     burst deactivates on its own (an event with source "emitter").
//     Dropped packets consume seq.
//   - duplicate_probability p: the packet is sent twice back to back, same
//     bytes (same seq and t_us).
//   - reorder_window_ms W: each packet is held back a uniform 0..W and sent
//     when due, so packets overtake each other; t_us stays the build
//     instant. Held packets live in a preallocated buffer of ReorderCapacity
//     entries; when full, the one due first is sent at once
//     (reorder_overflow_total). Switching reorder off lets held packets
//     leave when due. packets_reordered_total counts packets sent after a
//     higher seq (since the last seq jump): what a receiver counts as
//     late arrivals.
//   - jitter_ms J: each send instant is the nominal instant plus a uniform
//     -J..+J; the grid itself never moves. J is at most half a period, so
//     packets never swap.
//   - freeze: azimuth, elevation and both rates are held at their values
//     of the first packet after freeze took effect; seq and t_us advance and
//     the status bits stay live.
//   - invalid_az, invalid_el: AZ_VALID / EL_VALID cleared; the values keep
//     following their signals.
//   - seq_jump delta: delta is added to seq once, at the next packet, which
//     is thereby seq+1+delta (a forward jump of delta shows delta missing
//     numbers; a negative one looks like a restart without t_us going back).
//     Then it deactivates on its own (an event carrying that packet's seq).
//   - restart (an operator action beside the degradations, Set("restart",
//     "true")): at the next packet seq starts again at first_seq and t_us at
//     0, both going back together, which is how a receiver recognises an
//     emitter restart (section 2), which a seq_jump alone cannot make a
//     receiver see.
//   - silence: nothing is sent, not even packets held by the reorder window;
//     seq keeps advancing because the emitter keeps running, so after the
//     silence the receiver sees a timeout followed by a gap.
//
// Random choices come from splitmix64 generators seeded from Config.Seed, one
// stream per degradation: the same seed gives the same choices, and turning
// one degradation on does not change the choices of another.
//
// # Operator control
//
// Set (one key) may be called from any goroutine while the encoder runs.
// It validates, changes the state under a mutex the network thread only
// try-locks (it picks changes up at its next tick and never waits), and
// records every activation, deactivation and
// change of value as an Event: logged, kept in a ring of the last
// 128 events (streamerd's /status) and counted per degradation in
// degradation_activations_total / degradation_deactivations_total. The
// initial state comes from Config.Degradations (events with source
// "config").
//
// Nothing allocates per packet, whatever degradations are active.
package rd100s
