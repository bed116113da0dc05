package netthread

// ThreadID returns the thread's OS thread id (the TID of
// /proc/self/task/TID), recorded before its body started: what a monitor
// needs to read how the kernel treated it. 0 on systems other than Linux.
func (t *Thread) ThreadID() int {
	if t == nil {
		return 0
	}
	return t.tid
}
