package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// MainWithCommand is the TestMain of a command's package whose tests run
// the command itself: it builds the package in the working directory into
// a temporary directory, sets *bin to the binary's path, runs the tests
// and exits with their status once the directory is removed.
func MainWithCommand(m *testing.M, name string, bin *string) {
	dir, err := os.MkdirTemp("", name+"-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	*bin = filepath.Join(dir, name)
	code := 1
	if out, err := exec.Command("go", "build", "-o", *bin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}
