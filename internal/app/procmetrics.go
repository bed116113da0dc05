package app

import (
	"bytes"
	"io"
	"sync"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/valyala/bytebufferpool"

	"github.com/streamerd/streamerd/datasource"
)

// procMetricsEvery is how often /metrics renders the Go runtime and
// process metrics anew; scrapes in between get the same text.
const procMetricsEvery = time.Second

// procMetrics renders the runtime and process metrics at most once per
// procMetricsEvery. metrics.WriteProcessMetrics calls
// runtime.ReadMemStats, which stops the world, the RT goroutine with it;
// on a loaded machine a stop can last as long as the OS takes to run every
// thread holding a P. Cached, a flood of scrapes costs the RT loop at most
// one stop per second.
type procMetrics struct {
	mu   sync.Mutex
	text []byte
	at   time.Time
}

func (p *procMetrics) write(w io.Writer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.text == nil || time.Since(p.at) >= procMetricsEvery {
		buf := writerTo{p.text[:0]}
		datasource.WritePrometheus(&buf, writeRuntimeMetrics, metricHelp)
		p.text, p.at = buf.b, time.Now()
	}
	w.Write(p.text)
}

// writerTo appends to b.
type writerTo struct{ b []byte }

func (w *writerTo) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

// writeRuntimeMetrics writes metrics.WriteProcessMetrics's text with the
// families that break Prometheus's naming renamed (runtimeRenames) and the
// counters it types as gauges typed as counters (runtimeCounters).
func writeRuntimeMetrics(w io.Writer) {
	bb := bytebufferpool.Get()
	defer bytebufferpool.Put(bb)
	metrics.WriteProcessMetrics(bb)
	out := bytebufferpool.Get()
	defer bytebufferpool.Put(out)
	out.B = fixRuntimeNames(out.B, bb.B)
	w.Write(out.B)
}

// runtimeRenames are the families of github.com/VictoriaMetrics/metrics
// whose names break Prometheus's rules (a counter ends in _total, the unit
// comes last before it, _count ends the series of histograms and
// summaries only), by the name /metrics gives them.
var runtimeRenames = map[string]string{
	"go_cgo_calls_count":               "go_cgo_calls_total",
	"go_gc_forced_count":               "go_gc_forced_total",
	"go_cpu_count":                     "go_cpus",
	"process_cpu_seconds_system_total": "process_cpu_system_seconds_total",
	"process_cpu_seconds_user_total":   "process_cpu_user_seconds_total",
}

// runtimeCounters are the families of github.com/VictoriaMetrics/metrics
// that count up (read from /proc/self/io) but come typed as gauges.
var runtimeCounters = map[string]bool{
	"process_io_read_bytes_total":            true,
	"process_io_written_bytes_total":         true,
	"process_io_read_syscalls_total":         true,
	"process_io_write_syscalls_total":        true,
	"process_io_storage_read_bytes_total":    true,
	"process_io_storage_written_bytes_total": true,
}

var (
	typePrefix  = []byte("# TYPE ")
	helpPrefix  = []byte("# HELP ")
	counterType = []byte(" counter\n")
)

// fixRuntimeNames appends text to dst with runtimeRenames and
// runtimeCounters applied to its # HELP, # TYPE and sample lines.
func fixRuntimeNames(dst, text []byte) []byte {
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line = text[:i+1]
		}
		text = text[len(line):]
		head, rest := []byte(nil), line
		if r, ok := bytes.CutPrefix(line, helpPrefix); ok {
			head, rest = helpPrefix, r
		} else if r, ok := bytes.CutPrefix(line, typePrefix); ok {
			head, rest = typePrefix, r
		}
		n := bytes.IndexAny(rest, " {\n")
		if n < 0 {
			n = len(rest)
		}
		name, tail := rest[:n], rest[n:]
		if len(head) > 0 && head[2] == 'T' && runtimeCounters[string(name)] {
			tail = counterType
		}
		dst = append(dst, head...)
		if to, ok := runtimeRenames[string(name)]; ok {
			dst = append(dst, to...)
		} else {
			dst = append(dst, name...)
		}
		dst = append(dst, tail...)
	}
	return dst
}

// runtimeHelp is the help of the Go runtime and process families
// (github.com/VictoriaMetrics/metrics's WriteProcessMetrics on Linux,
// after runtimeRenames).
var runtimeHelp = map[string]string{
	"go_sched_latencies_seconds":                    "Time goroutines waited runnable before running, in seconds (Go runtime/metrics /sched/latencies).",
	"go_mutex_wait_seconds_total":                   "Time goroutines spent blocked on a sync.Mutex or sync.RWMutex, in seconds.",
	"go_gc_mark_assist_cpu_seconds_total":           "CPU time goroutines spent assisting the garbage collector, in seconds.",
	"go_gc_cpu_seconds_total":                       "CPU time the garbage collector used, in seconds.",
	"go_gc_pauses_seconds":                          "Stop-the-world pauses of the garbage collector, in seconds.",
	"go_scavenge_cpu_seconds_total":                 "CPU time spent returning memory to the OS, in seconds.",
	"go_memlimit_bytes":                             "The Go memory limit (GOMEMLIMIT), in bytes.",
	"go_memstats_alloc_bytes":                       "Heap bytes allocated and still in use (as go_memstats_heap_alloc_bytes), in bytes.",
	"go_memstats_alloc_bytes_total":                 "Heap bytes allocated since the start, freed or not, in bytes.",
	"go_memstats_buck_hash_sys_bytes":               "Memory of the profiling bucket hash table, in bytes.",
	"go_memstats_frees_total":                       "Heap objects freed since the start.",
	"go_memstats_gc_cpu_fraction":                   "Fraction of the CPU time available to the process used by the garbage collector since the start (0 to 1).",
	"go_memstats_gc_sys_bytes":                      "Memory of the garbage collector's metadata, in bytes.",
	"go_memstats_heap_alloc_bytes":                  "Heap bytes allocated and still in use, in bytes.",
	"go_memstats_heap_idle_bytes":                   "Heap bytes in spans with no object, in bytes.",
	"go_memstats_heap_inuse_bytes":                  "Heap bytes in spans with at least one object, in bytes.",
	"go_memstats_heap_objects":                      "Heap objects allocated and not yet freed.",
	"go_memstats_heap_released_bytes":               "Heap bytes returned to the OS, in bytes.",
	"go_memstats_heap_sys_bytes":                    "Heap bytes obtained from the OS, in bytes.",
	"go_memstats_last_gc_time_seconds":              "Time the last garbage collection ended, in seconds since the Unix epoch.",
	"go_memstats_lookups_total":                     "Pointer lookups by the runtime since the start.",
	"go_memstats_mallocs_total":                     "Heap objects allocated since the start.",
	"go_memstats_mcache_inuse_bytes":                "Memory of mcache structures in use, in bytes.",
	"go_memstats_mcache_sys_bytes":                  "Memory obtained from the OS for mcache structures, in bytes.",
	"go_memstats_mspan_inuse_bytes":                 "Memory of mspan structures in use, in bytes.",
	"go_memstats_mspan_sys_bytes":                   "Memory obtained from the OS for mspan structures, in bytes.",
	"go_memstats_next_gc_bytes":                     "Heap size at which the next garbage collection starts, in bytes.",
	"go_memstats_other_sys_bytes":                   "Other runtime memory obtained from the OS, in bytes.",
	"go_memstats_stack_inuse_bytes":                 "Goroutine stack bytes in use, in bytes.",
	"go_memstats_stack_sys_bytes":                   "Stack memory obtained from the OS, in bytes.",
	"go_memstats_sys_bytes":                         "Memory obtained from the OS by the Go runtime, all uses, in bytes.",
	"go_cgo_calls_total":                            "Calls from Go to C since the start.",
	"go_cpus":                                       "CPUs the process can use at its start (runtime.NumCPU).",
	"go_gc_duration_seconds":                        "Stop-the-world pauses of the last 256 garbage collections, as quantiles, in seconds.",
	"go_gc_forced_total":                            "Garbage collections forced by runtime.GC or debug.FreeOSMemory.",
	"go_gomaxprocs":                                 "GOMAXPROCS: OS threads that may run Go code at once.",
	"go_goroutines":                                 "Goroutines that exist.",
	"go_threads":                                    "OS threads the Go runtime created.",
	"go_info":                                       "1, labelled with the Go version the binary was built with.",
	"go_info_ext":                                   "1, labelled with the compiler, GOARCH, GOOS and GOROOT of the build.",
	"process_cpu_system_seconds_total":              "CPU time the process spent in the kernel, in seconds.",
	"process_cpu_seconds_total":                     "CPU time the process used, user and kernel, in seconds.",
	"process_cpu_user_seconds_total":                "CPU time the process spent in user space, in seconds.",
	"process_major_pagefaults_total":                "Page faults that read from disk.",
	"process_minor_pagefaults_total":                "Page faults served without disk access.",
	"process_num_threads":                           "OS threads of the process.",
	"process_resident_memory_bytes":                 "Resident memory (RSS), in bytes.",
	"process_start_time_seconds":                    "Start time of the process, in seconds since the Unix epoch.",
	"process_virtual_memory_bytes":                  "Virtual memory size, in bytes.",
	"process_virtual_memory_peak_bytes":             "Largest virtual memory size since the start, in bytes.",
	"process_resident_memory_peak_bytes":            "Largest resident memory since the start, in bytes.",
	"process_resident_memory_anon_bytes":            "Resident anonymous memory, in bytes.",
	"process_resident_memory_file_bytes":            "Resident file-backed memory, in bytes.",
	"process_resident_memory_shared_bytes":          "Resident shared memory, in bytes.",
	"process_io_read_bytes_total":                   "Bytes the process read through system calls, page cache included, in bytes.",
	"process_io_written_bytes_total":                "Bytes the process wrote through system calls, page cache included, in bytes.",
	"process_io_read_syscalls_total":                "Read system calls.",
	"process_io_write_syscalls_total":               "Write system calls.",
	"process_io_storage_read_bytes_total":           "Bytes the process caused to be read from storage, in bytes.",
	"process_io_storage_written_bytes_total":        "Bytes the process caused to be written to storage, in bytes.",
	"process_pressure_cpu_waiting_seconds_total":    "Time some task of the process's cgroup waited for a CPU since the start (PSI some), in seconds.",
	"process_pressure_cpu_stalled_seconds_total":    "Time every task of the process's cgroup waited for a CPU since the start (PSI full), in seconds.",
	"process_pressure_io_waiting_seconds_total":     "Time some task of the process's cgroup waited for I/O since the start (PSI some), in seconds.",
	"process_pressure_io_stalled_seconds_total":     "Time every task of the process's cgroup waited for I/O since the start (PSI full), in seconds.",
	"process_pressure_memory_waiting_seconds_total": "Time some task of the process's cgroup waited for memory since the start (PSI some), in seconds.",
	"process_pressure_memory_stalled_seconds_total": "Time every task of the process's cgroup waited for memory since the start (PSI full), in seconds.",
	"process_cgroup_cpu_throttled_seconds_total":    "Time the process's cgroup was throttled by its CPU limit since the start, in seconds.",
}
