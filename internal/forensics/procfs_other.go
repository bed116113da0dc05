//go:build !linux || portable

package forensics

// procFile stands for a /proc file on systems without one: nothing opens,
// nothing reads, and the monitor has only the Go runtime's evidence.
type procFile struct{ fd int }

func openProc(string) procFile              { return procFile{fd: -1} }
func openTask(int, string) procFile         { return procFile{fd: -1} }
func (procFile) read([]byte) ([]byte, bool) { return nil, false }
func (f *procFile) close()                  { f.fd = -1 }

// procAvailable reports whether this system has the /proc files the
// monitor reads.
const procAvailable = false

// ReadSteal returns false: steal is read from Linux's /proc/stat.
func ReadSteal() ([]int64, bool) { return nil, false }
