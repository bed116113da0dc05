package forensics

import (
	"os"
	"testing"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The files in testdata were read on the 2-vCPU VM the package is measured
// on; stat-after.txt is stat-before.txt with 81 ticks (810 ms) of steal
// added to CPU 1, as the hypervisor would.
func TestParseCPUSteal(t *testing.T) {
	var before, after [maxCPUs]int64
	if found := parseCPUSteal(readTestdata(t, "stat-before.txt"), &before); found != 0b11 {
		t.Fatalf("CPUs found %b, want 0b11", found)
	}
	if before[0] != 2457*clockTick || before[1] != 2813*clockTick {
		t.Errorf("steal %d, %d ns", before[0], before[1])
	}
	parseCPUSteal(readTestdata(t, "stat-after.txt"), &after)
	if d := after[1] - before[1]; d != 810e6 || after[0] != before[0] {
		t.Errorf("steal on CPU 1 grew %d ns, CPU 0 %d", d, after[0]-before[0])
	}
	for _, bad := range []string{"", "cpu0 1 2 3\n", "cpu0 1 2 3 4 5 6 7 x\n", "cpu99 1 2 3 4 5 6 7 8\n", "cpu0 1 2 3 4 5 6 7 8"} {
		var s [maxCPUs]int64
		if found := parseCPUSteal([]byte(bad), &s); found != 0 {
			t.Errorf("%q: found %b", bad, found)
		}
	}
}

func TestParseTaskStat(t *testing.T) {
	s, ok := parseTaskStat(readTestdata(t, "task-stat.txt"))
	if !ok || s.minflt != 2851 || s.majflt != 0 || s.cpu != 1 {
		t.Fatalf("%+v, %v", s, ok)
	}
	for _, bad := range []string{"", "1 (x", "1 (x) R 1 2 3", "1 (x) R 1 2 3 4 5 6 x 8 9"} {
		if _, ok := parseTaskStat([]byte(bad)); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseSchedstatAndStatus(t *testing.T) {
	run, wait, ok := parseSchedstat(readTestdata(t, "schedstat.txt"))
	if !ok || run != 2208126 || wait != 11996173 {
		t.Errorf("schedstat %d %d %v", run, wait, ok)
	}
	if _, _, ok := parseSchedstat([]byte("12")); ok {
		t.Error("a cut schedstat accepted")
	}
	vol, invol, ok := parseSwitches(readTestdata(t, "status.txt"))
	if !ok || vol != 0 || invol != 22 {
		t.Errorf("voluntary_ctxt_switches %d, nonvoluntary_ctxt_switches %d, %v", vol, invol, ok)
	}
	if _, _, ok := parseSwitches([]byte("x\nvoluntary_ctxt_switches:\t3\nnonvoluntary_ctxt_switches:\t12")); ok {
		t.Error("a cut status accepted")
	}
}

// FuzzParsers feeds the /proc parsers anything: they never panic, and what
// they accept they read as numbers.
func FuzzParsers(f *testing.F) {
	for _, n := range []string{"stat-before.txt", "task-stat.txt", "schedstat.txt", "status.txt"} {
		f.Add(readTestdata(f, n))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s [maxCPUs]int64
		parseCPUSteal(b, &s)
		parseTaskStat(b)
		parseSchedstat(b)
		parseSwitches(b)
	})
}
