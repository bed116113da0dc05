//go:build !portable

package forensics

import (
	"math/bits"
	"strconv"

	"golang.org/x/sys/unix"
)

// procFile is a /proc file kept open and read again from its start with
// pread: no allocation per read.
type procFile struct{ fd int }

// openProc opens path for reading; a zero procFile (fd -1) on failure.
func openProc(path string) procFile {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return procFile{fd: -1}
	}
	return procFile{fd: fd}
}

// openTask opens file (stat, schedstat, status) of thread tid of this
// process.
func openTask(tid int, file string) procFile {
	return openProc("/proc/self/task/" + strconv.Itoa(tid) + "/" + file)
}

// read fills buf from the start of the file and returns what it read;
// false if the file is not open or cannot be read (the thread is gone).
// A file longer than buf is cut, which the parsers detect.
func (f procFile) read(buf []byte) ([]byte, bool) {
	if f.fd < 0 {
		return nil, false
	}
	n, err := unix.Pread(f.fd, buf, 0)
	if err != nil || n <= 0 {
		return nil, false
	}
	return buf[:n], true
}

func (f *procFile) close() {
	if f.fd >= 0 {
		unix.Close(f.fd)
		f.fd = -1
	}
}

// procAvailable reports whether this system has the /proc files the
// monitor reads.
const procAvailable = true

// ReadSteal returns the hypervisor steal of every CPU so far, from
// /proc/stat, in nanoseconds (10 ms resolution), indexed by CPU; false if
// it cannot be read. It allocates: for tools, not for the monitor's loop.
func ReadSteal() ([]int64, bool) {
	f := openProc("/proc/stat")
	defer f.close()
	b, ok := f.read(make([]byte, statBytes))
	if !ok {
		return nil, false
	}
	var s [maxCPUs]int64
	found := parseCPUSteal(b, &s)
	if found == 0 {
		return nil, false
	}
	n := 64 - bits.LeadingZeros64(found)
	return s[:n:n], true
}
