package forensics

import "bytes"

// The parsers below read the text of /proc files in place: no strings, no
// allocation, and a malformed or cut file reads as "not available" rather
// than as wrong numbers.

// clockTick is the unit of /proc/stat's times: USER_HZ, 100 on every Linux
// architecture Go supports.
const clockTick = 10_000_000 // ns

// maxCPUs bounds the CPUs whose steal is followed, as cpu.Mask does.
const maxCPUs = 64

// parseCPUSteal reads the per-CPU lines of /proc/stat ("cpuN user nice
// system idle iowait irq softirq steal ...") into steal, in nanoseconds,
// and returns the mask of CPUs found. The aggregate "cpu" line and CPUs
// from maxCPUs up are skipped.
func parseCPUSteal(b []byte, steal *[maxCPUs]int64) (found uint64) {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil // a last line without its newline may be cut: skip it
			break
		}
		if len(line) < 4 || line[0] != 'c' || line[1] != 'p' || line[2] != 'u' {
			if found != 0 {
				break // the CPU lines come first
			}
			continue
		}
		cpu, rest, ok := leadingUint(line[3:])
		if !ok || cpu >= maxCPUs {
			continue
		}
		var v uint64
		for range 8 { // the eighth number is steal
			if v, rest, ok = nextUint(rest); !ok {
				break
			}
		}
		if ok {
			steal[cpu] = int64(v) * clockTick
			found |= 1 << cpu
		}
	}
	return found
}

// taskStat is what /proc/self/task/TID/stat tells about a thread.
type taskStat struct {
	minflt, majflt uint64
	cpu            int // the CPU it last ran on
}

// parseTaskStat reads minflt (field 10), majflt (12) and processor (39)
// of a /proc/PID/stat line. The command name (field 2) may hold spaces and
// parentheses, so fields are counted from the last ')'.
func parseTaskStat(b []byte) (s taskStat, ok bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 > len(b) {
		return s, false
	}
	rest := b[i+1:]
	// Field 3 (state) is a letter; fields 4.. are numbers, some negative.
	for f := 3; f <= 39; f++ {
		var tok []byte
		if tok, rest = nextField(rest); tok == nil {
			return s, false
		}
		switch f {
		case 10:
			s.minflt, ok = atou(tok)
		case 12:
			s.majflt, ok = atou(tok)
		case 39:
			var c uint64
			c, ok = atou(tok)
			s.cpu = int(c)
		default:
			continue
		}
		if !ok {
			return s, false
		}
	}
	return s, true
}

// parseSchedstat reads /proc/PID/schedstat: the time the thread ran and
// the time it waited on a run queue, runnable but not running, both in
// nanoseconds (then the number of time slices, ignored).
func parseSchedstat(b []byte) (run, wait int64, ok bool) {
	r, rest, ok1 := nextUint(b)
	w, _, ok2 := nextUint(rest)
	return int64(r), int64(w), ok1 && ok2
}

// parseSwitches reads voluntary_ctxt_switches and
// nonvoluntary_ctxt_switches from a /proc/PID/status file.
func parseSwitches(b []byte) (vol, invol uint64, ok bool) {
	vol, ok1 := statusField(b, "\nvoluntary_ctxt_switches:")
	invol, ok2 := statusField(b, "\nnonvoluntary_ctxt_switches:")
	return vol, invol, ok1 && ok2
}

// statusField reads the number after key (which starts with a newline)
// on its line of a status file; false if absent or cut.
func statusField(b []byte, key string) (uint64, bool) {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return 0, false
	}
	rest := b[i+len(key):]
	j := bytes.IndexByte(rest, '\n')
	if j < 0 {
		return 0, false // cut
	}
	n, _, ok := nextUint(rest[:j])
	return n, ok
}

// nextField returns the next space-separated token of b and what follows,
// or nil at the end.
func nextField(b []byte) (tok, rest []byte) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n') {
		i++
	}
	j := i
	for j < len(b) && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' {
		j++
	}
	if i == j {
		return nil, nil
	}
	return b[i:j], b[j:]
}

// nextUint skips blanks and reads an unsigned decimal number.
func nextUint(b []byte) (v uint64, rest []byte, ok bool) {
	tok, rest := nextField(b)
	v, ok = atou(tok)
	return v, rest, ok
}

// leadingUint reads the decimal digits at the start of b (the N of cpuN).
func leadingUint(b []byte) (v uint64, rest []byte, ok bool) {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == 0 || i > 19 {
		return 0, b, false
	}
	v, ok = atou(b[:i])
	return v, b[i:], ok
}

// atou reads a whole token as an unsigned decimal number of at most 19
// digits (no overflow).
func atou(tok []byte) (v uint64, ok bool) {
	if len(tok) == 0 || len(tok) > 19 {
		return 0, false
	}
	for _, c := range tok {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}
