package marte2

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
)

// A scaleShape is a family of MARTe2 files whose size grows with n: the
// large and hostile layouts the importer must handle in time and memory
// linear in the file.
type scaleShape struct {
	name string
	gen  func(n int) []byte
	big  int // n of about 2 to 4 MB, for BenchmarkImportScale
}

// cfgApp wraps the +Functions, +Data and +States bodies in an application.
func cfgApp(functions, data, states string) []byte {
	return []byte("$App = {\n Class = RealTimeApplication\n +Functions = {\n Class = ReferenceContainer\n" + functions +
		" }\n +Data = {\n Class = ReferenceContainer\n DefaultDataSource = DDB\n +DDB = { Class = GAMDataSource }\n" +
		" +Timer = { Class = LinuxTimer ExecutionMode = RealTimeThread Signals = { Counter = { Type = uint32 } Time = { Type = uint32 } } }\n" +
		data + " }\n +States = {\n Class = ReferenceContainer\n" + states + " }\n}\n")
}

// runState is a RealTimeState whose one thread runs functions.
func runState(name, functions string) string {
	return " +" + name + " = { Class = RealTimeState +Threads = { Class = ReferenceContainer +T = { Class = RealTimeThread Functions = { " + functions + " } } } }\n"
}

// clock is an IOGAM that reads the timer (pacing the thread) into DDB.C.
const clock = " +Clock = { Class = IOGAM InputSignals = { Counter = { DataSource = Timer Type = uint32 Frequency = 1000 } }" +
	" OutputSignals = { C = { Type = uint32 } } }\n"

// signals returns n signal blocks "<prefix>i = { <body> }".
func signals(n int, prefix, body string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "  %s%d = { %s }\n", prefix, i, body)
	}
	return b.String()
}

var scaleShapes = []scaleShape{
	// One IOGAM with n outputs into a UDPSender, no input: 60 000
	// outputs make a 2.7 MB file.
	{"iogam-outputs", func(n int) []byte {
		return cfgApp(" +G = { Class = IOGAM\n OutputSignals = {\n"+signals(n, "O", "DataSource = UDPOut Type = uint32")+" } }\n",
			" +UDPOut = { Class = UDP::UDPSender Address = \"127.0.0.1\" ExecutionMode = RealTimeThread }\n",
			runState("Run", "G"))
	}, 60000},
	// An IOGAM copying the timer's Counter into n UDPStreamer signals:
	// it imports, every signal routed.
	{"iogam-streamer", func(n int) []byte {
		return cfgApp(clock+" +G = { Class = IOGAM\n InputSignals = {\n"+signals(n, "I", "Alias = C Type = uint32")+" }\n OutputSignals = {\n"+
			signals(n, "O", "DataSource = S Type = uint32")+" } }\n",
			" +S = { Class = UDPStreamer Port = 44500 }\n", runState("Run", "Clock G"))
	}, 30000},
	// n IOGAMs in a chain, each copying the value on, and a last one
	// fanning it out to n signals: every signal went through n GAMs.
	{"iogam-chain", func(n int) []byte {
		var f strings.Builder
		f.WriteString(strings.Replace(clock, "C = {", "C0 = {", 1))
		names := []string{"Clock"}
		for i := range n {
			fmt.Fprintf(&f, " +C%d = { Class = IOGAM InputSignals = { V%d = { Alias = C%d Type = uint32 } } OutputSignals = { V%d = { Alias = C%d Type = uint32 } } }\n", i, i, i, i, i+1)
			names = append(names, fmt.Sprintf("C%d", i))
		}
		f.WriteString(" +Fan = { Class = IOGAM\n InputSignals = {\n" + signals(n, "I", fmt.Sprintf("Alias = C%d Type = uint32", n)) +
			" }\n OutputSignals = {\n" + signals(n, "O", "DataSource = S Type = uint32") + " } }\n")
		names = append(names, "Fan")
		return cfgApp(f.String(), " +S = { Class = UDPStreamer Port = 44500 }\n",
			runState("Run", strings.Join(names, " ")))
	}, 8000},
	// n WaveformGAMs each reading the previous one's output as its time,
	// the first fed by a GAM streamerd does not import: the reasons do not
	// nest.
	{"waveform-chain", func(n int) []byte {
		var f strings.Builder
		f.WriteString(" +W0 = { Class = PIDGAM OutputSignals = { T0 = { Type = uint32 } } }\n")
		names := []string{"W0"}
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&f, " +W%d = { Class = WaveformGAM::WaveformSin Amplitude = 1 Frequency = 1 Phase = 0 Offset = 0 InputSignals = { T%d = { Type = uint32 } } OutputSignals = { T%d = { Type = uint32 } } }\n", i, i-1, i)
			names = append(names, fmt.Sprintf("W%d", i))
		}
		f.WriteString(" +Out = { Class = IOGAM InputSignals = { T = { Alias = T" + fmt.Sprint(n) + " Type = uint32 } } OutputSignals = { T = { DataSource = S Type = uint32 } } }\n")
		return cfgApp(clock+f.String(), " +S = { Class = UDPStreamer Port = 44500 }\n", runState("Run", "Clock "+strings.Join(names, " ")+" Out"))
	}, 20000},
	// n ConstantGAMs in one thread, each writing one signal.
	{"gams", constantGAMs, 20000},
	// A group of n GAMs that each of n threads runs (MARTe2 refuses a
	// GAM in two threads of one state), and that each of n other states
	// runs.
	{"threads", func(n int) []byte {
		var f strings.Builder
		f.WriteString(clock + " +Grp = { Class = ReferenceContainer\n")
		for i := range n {
			fmt.Fprintf(&f, " +K%d = { Class = ConstantGAM OutputSignals = { K%d = { DataSource = S Type = uint32 Default = 1 } } }\n", i, i)
		}
		f.WriteString(" }\n")
		var st strings.Builder
		st.WriteString(" +Run = { Class = RealTimeState +Threads = { Class = ReferenceContainer\n")
		for i := range n {
			fmt.Fprintf(&st, "  +T%d = { Class = RealTimeThread Functions = { Clock Grp } }\n", i)
		}
		st.WriteString(" } }\n")
		for i := range n {
			st.WriteString(runState(fmt.Sprintf("Other%d", i), "Clock Grp"))
		}
		return cfgApp(f.String(), " +S = { Class = UDPStreamer Port = 44500 }\n", st.String())
	}, 8000},
	// n GAMs reading DDB signals that a later GAM of the thread writes
	// (MARTe2's one-cycle delay, unfed).
	{"ddb-before-write", func(n int) []byte {
		return cfgApp(clock+" +R = { Class = IOGAM\n InputSignals = {\n"+signals(n, "X", "Type = uint32")+" }\n OutputSignals = {\n"+
			signals(n, "O", "DataSource = S Type = uint32")+" } }\n +W = { Class = IOGAM\n InputSignals = {\n"+signals(n, "I", "Alias = C Type = uint32")+
			" }\n OutputSignals = {\n"+signals(n, "X", "Type = uint32")+" } }\n",
			" +S = { Class = UDPStreamer Port = 44500 }\n", runState("Run", "Clock R W"))
	}, 15000},
	// n ConstantGAMs in an application nested in blocks up to MaxDepth,
	// each named with MaxTokenLen bytes: every object's path is about
	// 1 MB long.
	{"deep-long-names", func(n int) []byte {
		return nestLongNames(constantGAMs(n), MaxDepth-5) // $App +Functions +K OutputSignals K
	}, 25000},
	// One vector of n elements (a 4 MB file holds two million).
	{"vector", func(n int) []byte {
		return cfgApp(clock+" +K = { Class = ConstantGAM OutputSignals = { K = { DataSource = S Type = uint8 NumberOfElements = "+fmt.Sprint(n)+
			" Default = {"+strings.Repeat(" 1", n)+" } } } }\n",
			" +S = { Class = UDPStreamer Port = 44500 }\n", runState("Run", "Clock K"))
	}, 2000000},
}

// constantGAMs returns an application of n ConstantGAMs in one thread,
// each writing one signal.
func constantGAMs(n int) []byte {
	var f strings.Builder
	var names []string
	for i := range n {
		fmt.Fprintf(&f, " +K%d = { Class = ConstantGAM OutputSignals = { K%d = { DataSource = S Type = uint32 Default = %d } } }\n", i, i, i)
		names = append(names, fmt.Sprintf("K%d", i))
	}
	return cfgApp(clock+f.String(), " +S = { Class = UDPStreamer Port = 44500 }\n", runState("Run", "Clock "+strings.Join(names, " ")))
}

// nestLongNames wraps a configuration in levels of objects, each named
// with MaxTokenLen bytes.
func nestLongNames(cfg []byte, levels int) []byte {
	var b strings.Builder
	for i := range levels {
		name := fmt.Sprintf("+L%d", i)
		b.WriteString(name + strings.Repeat("N", MaxTokenLen-len(name)) + " = { Class = ReferenceContainer\n")
	}
	b.Write(cfg)
	b.WriteString(strings.Repeat("}\n", levels))
	return []byte(b.String())
}

// importCost imports data and returns the steps of the importer's loops,
// the bytes allocated and the allocations.
func importCost(t testing.TB, data []byte) (steps int, bytes, mallocs uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	im, _, err := importWith("scale.cfg", data, Options{})
	runtime.ReadMemStats(&after)
	if err != nil && !isMappingError(err) {
		t.Fatalf("%v", err)
	}
	return im.steps, after.TotalAlloc - before.TotalAlloc, after.Mallocs - before.Mallocs
}

// isMappingError reports whether err is an import error (not a syntax
// error, which would mean the generated file is wrong).
func isMappingError(err error) bool {
	_, ok := err.(Errors)
	return ok
}

// TestImportLinear: each shape at 4n costs at most 4.5 times the steps of
// the importer's loops at n, and at most 6 times the bytes allocated and
// the allocations (linear is 4, plus the steps in which maps and slices
// grow, and the race detector's own); a quadratic path costs 16 times.
func TestImportLinear(t *testing.T) {
	const n = 400
	for _, sh := range scaleShapes {
		t.Run(sh.name, func(t *testing.T) {
			small, large := sh.gen(n), sh.gen(4*n)
			s1, b1, m1 := importCost(t, small)
			s4, b4, m4 := importCost(t, large)
			t.Logf("n=%d: %d bytes, %d steps, %d B allocated, %d allocations; 4n: %d bytes, %d steps, %d B, %d allocations",
				n, len(small), s1, b1, m1, len(large), s4, b4, m4)
			for _, c := range []struct {
				what          string
				n1, n4, limit float64
			}{{"steps", float64(s1), float64(s4), 4.5}, {"bytes allocated", float64(b1), float64(b4), 6}, {"allocations", float64(m1), float64(m4), 6}} {
				if c.n4 > c.limit*c.n1 {
					t.Errorf("%s: %.0f at n=%d, %.0f at 4n: ×%.1f, not linear", c.what, c.n1, n, c.n4, c.n4/c.n1)
				}
			}
		})
	}
}

// TestImportVectorMemory: a vector of 200 000 elements (400 kB) costs less
// than twice its file's size in allocations (the parser's copy of the
// text, and little else): its elements are read from the text when
// needed, never stored.
func TestImportVectorMemory(t *testing.T) {
	data := scaleShapes[len(scaleShapes)-1].gen(200000)
	_, bytes, _ := importCost(t, data)
	t.Logf("%d-byte file: %d bytes allocated", len(data), bytes)
	if bytes > 2*uint64(len(data)) {
		t.Errorf("%d bytes allocated for a %d-byte file", bytes, len(data))
	}
}

// BenchmarkImportScale imports each shape at the size of a large file
// (2 to 4 MB) and reports the file's size, the bytes allocated and the
// heap at the import's fullest (importMemory) per byte of the file, the
// time of one import (wall and the process's CPU time,
// garbage collection included; the CPU time varies less on a loaded
// machine) and, against the same shape at a quarter of the size, the
// ratio of the CPU times (4 when linear, 16 when quadratic).
func BenchmarkImportScale(b *testing.B) {
	for _, sh := range scaleShapes {
		b.Run(sh.name, func(b *testing.B) {
			large, small := sh.gen(sh.big), sh.gen(sh.big/4)
			b.ReportAllocs()
			var wall, cpuLarge, cpuSmall time.Duration
			for b.Loop() {
				runtime.GC() // no collection owed by the import before
				t0, c0 := time.Now(), testenv.CPUTime()
				if _, err := Import("scale.cfg", large, Options{}); err != nil && !isMappingError(err) {
					b.Fatal(err)
				}
				c1 := testenv.CPUTime()
				wall += time.Since(t0)
				runtime.GC()
				c2 := testenv.CPUTime()
				Import("scale.cfg", small, Options{})
				cpuLarge, cpuSmall = cpuLarge+c1-c0, cpuSmall+testenv.CPUTime()-c2
			}
			heap, alloc := importMemory(b, large)
			b.ReportMetric(float64(len(large))/1e6, "file-MB")
			b.ReportMetric(alloc, "alloc-B/file-B")
			b.ReportMetric(heap, "heap-B/file-B")
			b.ReportMetric(wall.Seconds()/float64(b.N), "s/import")
			b.ReportMetric(cpuLarge.Seconds()/float64(b.N), "cpu-s/import")
			b.ReportMetric(float64(cpuLarge)/float64(cpuSmall), "cpu-4n/n")
		})
	}
}

var scaleFiles = flag.String("scale-files", "", "TestWriteScaleFiles writes each shape of BenchmarkImportScale at its large size into this directory, as <shape>.cfg")

// TestWriteScaleFiles writes the large files of the scale shapes, to
// measure the command on them (docs/marte2.md):
//
//	go test -run TestWriteScaleFiles ./internal/marte2/ -scale-files /tmp/scale
func TestWriteScaleFiles(t *testing.T) {
	if *scaleFiles == "" {
		t.Skip("no -scale-files directory")
	}
	if err := os.MkdirAll(*scaleFiles, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sh := range scaleShapes {
		data := sh.gen(sh.big)
		if len(data) > MaxFileSize {
			t.Errorf("%s: %d bytes, over MaxFileSize", sh.name, len(data))
		}
		if err := os.WriteFile(filepath.Join(*scaleFiles, sh.name+".cfg"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Bounds on the import's memory, per byte of the file: its heap at its
// fullest (the model built and the TOML allocated, the file's bytes
// included), and all it allocates (the file's bytes not included).
const (
	maxHeapPerByte  = 10
	maxAllocPerByte = 15
)

// importMemory imports data and returns its heap at its fullest and the
// bytes it allocated, per byte of data.
func importMemory(t testing.TB, data []byte) (heap, alloc float64) {
	t.Helper()
	var before, at, after runtime.MemStats
	peak := int64(math.MinInt64)
	opt := Options{checkpoint: func() {
		runtime.GC()
		runtime.ReadMemStats(&at)
		peak = max(peak, int64(at.HeapAlloc))
	}}
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _, err := importWith("scale.cfg", data, opt)
	runtime.ReadMemStats(&after)
	if err != nil && !isMappingError(err) {
		t.Fatalf("%v", err)
	}
	n := float64(len(data))
	// The checkpoints' own collections free garbage, not what they
	// measure; TotalAlloc counts each allocation once.
	if peak == math.MinInt64 {
		t.Fatalf("no checkpoint")
	}
	return (float64(max(peak-int64(before.HeapAlloc), 0)) + n) / n, float64(after.TotalAlloc-before.TotalAlloc) / n
}

// TestImportMemory: every shape, at an eighth of its large size (a few
// hundred kB), imports within maxHeapPerByte bytes of heap and
// maxAllocPerByte bytes allocated per byte of the file (the allocations
// not under the race detector, which adds its own).
func TestImportMemory(t *testing.T) {
	for _, sh := range scaleShapes {
		t.Run(sh.name, func(t *testing.T) {
			data := sh.gen(sh.big / 8)
			heap, alloc := importMemory(t, data)
			t.Logf("%d bytes: heap %.2f B and %.2f B allocated per byte", len(data), heap, alloc)
			if heap > maxHeapPerByte {
				t.Errorf("heap at its fullest %.1f bytes per byte of the file, more than %d", heap, maxHeapPerByte)
			}
			if alloc > maxAllocPerByte && !testenv.RaceEnabled {
				t.Errorf("%.1f bytes allocated per byte of the file, more than %d", alloc, maxAllocPerByte)
			}
		})
	}
}
