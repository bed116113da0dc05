// Package regfile reads files named by an operator (a configuration, a token) bounded in size, refusing what is not a regular file.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular and ErrTooLarge are the refusals of Read, for errors.Is.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("file too large")
)

// Read returns the contents of the regular file at path, at most max
// bytes. A named pipe, a device, a socket or a directory is refused with
// ErrNotRegular without reading from it (a FIFO is opened non-blocking, so
// Read never waits for a writer), and a file larger than max with
// ErrTooLarge before it is read. Symbolic links are followed. The errors
// name path and say what was found.
func Read(path string, max int64) ([]byte, error) {
	f, st, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > max {
		return nil, fmt.Errorf("%s: %w: %d bytes, at most %d", path, ErrTooLarge, st.Size(), max)
	}
	// Read into a buffer of the file's size (and room to see that it
	// grew), so that the bytes are allocated once.
	data, err := readAll(io.LimitReader(f, max+1), make([]byte, 0, st.Size()+512))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max { // it grew while being read
		return nil, fmt.Errorf("%s: %w: more than %d bytes", path, ErrTooLarge, max)
	}
	return data, nil
}

// Open opens the regular file at path for reading and returns it with its
// FileInfo. What is not a regular file is refused as Read refuses it,
// without waiting for a FIFO's writer.
func Open(path string) (*os.File, fs.FileInfo, error) {
	return OpenFile(path, os.O_RDONLY)
}

// OpenFile is Open with the access flag (os.O_RDONLY, os.O_RDWR) and
// further flags given, for a file to be changed in place; it creates
// nothing.
func OpenFile(path string, flag int) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, flag&^os.O_CREATE|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, kind(st.Mode()))
	}
	return f, st, nil
}

// kind names what a non-regular file is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// readAll is io.ReadAll reading into b.
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grow
		}
	}
}
