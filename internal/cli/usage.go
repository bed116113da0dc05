package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// Usage is what a command's -h prints: its synopsis lines, a paragraph
// on what it does, every flag with its default, and examples.
type Usage struct {
	Synopsis []string // command lines without the program name's "usage: " prefix
	Summary  string   // one paragraph
	Examples []string // command lines, each optionally followed by "  # what it does"
}

// SetUsage makes fs print u, with fs's flags, to fs.Output() when -h or
// -help is given or a flag is wrong. A command returns ExitOK when its
// Parse returns flag.ErrHelp.
func SetUsage(fs *flag.FlagSet, u Usage) {
	fs.Usage = func() { u.Write(fs.Output(), fs) }
}

// ParseError is the exit code of a command whose flags did not parse:
// ExitOK for -h or -help (the usage is printed already), otherwise
// ExitUsage after "name: err" on stderr.
func ParseError(name string, stderr io.Writer, err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	fmt.Fprintln(stderr, name+":", err)
	return ExitUsage
}

// Write prints u with the flags of fs to w.
func (u Usage) Write(w io.Writer, fs *flag.FlagSet) {
	for i, s := range u.Synopsis {
		prefix := "usage: "
		if i > 0 {
			prefix = "       "
		}
		fmt.Fprintf(w, "%s%s %s\n", prefix, fs.Name(), s)
	}
	if u.Summary != "" {
		fmt.Fprintf(w, "\n%s\n", u.Summary)
	}
	fmt.Fprintf(w, "\nflags:\n")
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
	if len(u.Examples) > 0 {
		fmt.Fprintf(w, "\nexamples:\n")
		for _, e := range u.Examples {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
}

// Version returns "name version (revision, time[, modified]) goversion
// os/arch" from the build information the Go toolchain embeds: the module
// version ("(devel)" or a pseudo-version when built from a checkout) and
// the VCS revision when the binary was built inside a repository.
func Version(name string) string {
	v := "(unknown)"
	var vcs []string
	if bi, ok := debug.ReadBuildInfo(); ok {
		v = bi.Main.Version
		var rev, at, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = "modified"
				}
			}
		}
		for _, s := range []string{rev, at, modified} {
			if s != "" {
				vcs = append(vcs, s)
			}
		}
	}
	s := name + " " + v
	if len(vcs) > 0 {
		s += " (" + strings.Join(vcs, ", ") + ")"
	}
	return s + " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
}
