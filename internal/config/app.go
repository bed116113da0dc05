package config

import (
	"math"
	"strconv"

	"github.com/streamerd/streamerd/rt/cpu"
)

// defaultGCLimit is App.MemoryLimit when GCPolicy is "off" and the file
// sets no limit.
const defaultGCLimit = 1 << 30

// appKeys are the keys of [App].
var appKeys = table[App]{
	name: "App",
	defaults: func(a *App) {
		*a = App{HTTPAddress: "127.0.0.1:9100", LogLevel: "info", LogFormat: "text", GCPolicy: "default",
			MemoryLimit: MemoryLimitAuto, CPUWakeLatency: -1}
	},
	keys: []key[App]{
		field("HTTPAddress", hostPort("127.0.0.1:9100", "HTTP"), func(a *App) *string { return &a.HTTPAddress }).
			Doc("`host:port` of the HTTP endpoint (metrics, status, control, see [HTTP endpoint](#http-endpoint)); `\"\"` disables HTTP; `streamerd -http` overrides it. [status.md](status.md) explains every field of `GET /status`. On an address that is not loopback (`\":9100\"`, `\"0.0.0.0:9100\"`, a LAN address), `/force`, `/release` and `/degrade` are refused unless `HTTPTokenFile` (or `HTTPInsecureControl`) is set, and `-check` and the start warn."),
		field("HTTPTokenFile", str(), func(a *App) *string { return &a.HTTPTokenFile }).
			Doc("path of a file holding a bearer token (at least 16 printable ASCII characters without spaces; surrounding white space and the final newline are ignored; at most 4 KiB; a regular file). With it, every HTTP request, `/metrics` and `/status` included, must carry `Authorization: Bearer <token>`; a request without it gets 401. The scope asks for the same token. Read when the application is built, so `-check` reports a missing or bad file. Keep the file readable by the daemon's user only: `-check` and the start warn when every user can read it."),
		field("HTTPInsecureControl", boolean(), func(a *App) *bool { return &a.HTTPInsecureControl }).
			Doc("serve `/force`, `/release` and `/degrade` without a token on an `HTTPAddress` that is not loopback: anyone who can reach the port can force signals. An error where it changes nothing (loopback address, HTTP off, or with `HTTPTokenFile`).").
			Check(func(a *App) string {
				switch {
				case !a.HTTPInsecureControl:
				case a.HTTPAddress == "":
					return "has no effect with HTTP off (HTTPAddress = \"\")"
				case a.HTTPTokenFile != "":
					return "has no effect with HTTPTokenFile: every request carries the token"
				case LoopbackHost(a.HTTPAddress):
					return "has no effect on a loopback HTTPAddress, where the control endpoints are served without a token"
				}
				return ""
			}),
		field("HTTPAllowedHosts", hostNames(), func(a *App) *[]string { return &a.HTTPAllowedHosts }).
			Doc("host names (without port) the HTTP endpoint and the scope answer to besides `localhost`, any IP address and the host of their address, e.g. `[\"streamerd.lab.example.org\"]` when browsers reach them by a DNS name or through a proxy. A request naming any other host in its `Host` header gets 421 (see [Host names](#host-names))."),
		field("ScopeAddress", hostPort("127.0.0.1:8090", "the scope"), func(a *App) *string { return &a.ScopeAddress }).
			Doc("`host:port` of the web scope (see [scope.md](scope.md)): one page per UDPStreamer or Replay datasource, at `/` when there is one and at `/<name>/` when there are several; `\"\"` (the default) disables it. Needs such a datasource. The scope reads each datasource inside the process (its tap), not as a network client: it never takes the datasource's one session, and clients connect as if it were not there. `HTTPTokenFile` covers the scope too (its page asks for the token, [scope.md](scope.md#access)), as do `HTTPAllowedHosts` and the connection bounds of the [HTTP endpoint](#http-endpoint); on an address that is not loopback without `HTTPTokenFile`, `-check` and the start warn."),
		field("LogLevel", oneOf("debug", "info", "warn", "error"), func(a *App) *string { return &a.LogLevel }),
		field("LogFormat", oneOf("text", "json"), func(a *App) *string { return &a.LogFormat }).
			Doc("log/slog handlers"),
		field("LockMemory", boolean(), func(a *App) *bool { return &a.LockMemory }).
			Doc("`mlockall(MCL_CURRENT\\|MCL_FUTURE)` at start, so the RT threads never page-fault; needs `CAP_IPC_LOCK` or a large `ulimit -l`"),
		field("GCPolicy", oneOf("default", "off"), func(a *App) *string { return &a.GCPolicy }).
			Doc("`default`: Go's collector as configured by `GOGC`; `off`: GOGC off during the run (no GC pauses, the heap only grows)"),
		field("MemoryLimit", integer[int64](0, math.MaxInt64), func(a *App) *int64 { return &a.MemoryLimit }).
			Unit("bytes").Default("automatic").
			Doc("the soft memory limit of the run (`debug.SetMemoryLimit`); 0 = no limit. Left out: `GOMEMLIMIT` when the environment sets it, else 128 MiB, or twice the heap of the built application when that is more (large signals), so the limit never sits under what the application needs. See [Memory, the collector and the scheduler](#memory-the-collector-and-the-scheduler). With `GCPolicy = \"off\"` it is the safety net that makes the collector run anyway, and 0 or left out means 1 GiB (1073741824)."),
		field("CPUWakeLatency", integer[int](-1, 2_000_000_000), func(a *App) *int { return &a.CPUWakeLatency }).
			Unit("µs").
			Doc("−1 (off) or ≥ 0: while streamerd runs, hold the kernel's PM QoS CPU wake-up latency (`/dev/cpu_dma_latency`) at this value, as cyclictest does. On a VM whose idle vCPUs halt (a `haltpoll` cpuidle driver), waking the parked network thread pinned to another CPU then cost about 1.6 µs instead of 7, and the RT thread's SCHED_FIFO wake-up p50 dropped from 31 to 17 µs; on one without a cpuidle driver it changed nothing (BENCHMARKS.md, *Wake-up latency on a VM*). Costs power; needs root."),
		field("RuntimePriority", integer[int](0, cpu.MaxPriority), func(a *App) *int { return &a.RuntimePriority }).
			Doc("0 (normal scheduling) or 1.." + strconv.Itoa(cpu.MaxPriority) + ": run the Go runtime's own threads (scheduler, garbage collector, timers, the HTTP server), and every other thread of the process left under normal scheduling, at SCHED_FIFO at this priority while streamerd runs; threads with a `Priority` of their own keep it. An RT thread waits for the runtime at every garbage collection and when it hands its P over to the Go scheduler between cycles (every 8 ms); beside CPU-bound processes, runtime threads under normal scheduling get the CPU late and held a SCHED_FIFO RT thread up to seconds (the cause `go_scheduler` of [timings.md](timings.md#late-cycles)); with this key they get the CPU before normal work, as under `chrt --fifo 1`. Set it below every `Priority` of the threads and datasources, e.g. 1. Needs root or `CAP_SYS_NICE`; a busy goroutine then also runs ahead of every process under normal scheduling. Leave the process two CPUs or more: on one (`taskset -c 0`), the runtime's threads all share it at this priority, where one that spins holds the others off it (once in twelve runs the process hung so, [RELIABILITY.md](../RELIABILITY.md)); the start warns."),
		field("LateTraceDir", str(), func(a *App) *string { return &a.LateTraceDir }).
			Doc("a directory where streamerd writes, for a late cycle of an RT thread or a cycle a producer skipped, a Go execution trace of the seconds before it was explained (`late-RT1-20261202T224721.970-cpu_unavailable.trace`, `skip-…` for a skip; opened with `go tool trace`) and the event with its evidence and its deadline on the trace's clock (`.json`): the way to check where a cycle's time went (see [timings.md](timings.md#checking-a-cause-with-a-trace)). At most 20 traces a run, one per 10 s, each at most 16 MiB; `\"\"` (the default) writes none. While it is set the Go runtime traces the whole process into memory (`runtime/trace`'s flight recorder): a diagnostic, which costs CPU and allocates. It must name an existing directory the daemon can write to, checked when the application is built."),
	},
	finish: func(_ *tbl, a *App) {
		if a.GCPolicy == "off" && a.MemoryLimit <= 0 {
			a.MemoryLimit = defaultGCLimit
		}
	},
}
