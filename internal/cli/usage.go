package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/streamerd/streamerd/internal/suggest"
)

// Usage is what a command's -h prints: its synopsis lines, a paragraph
// on what it does, every flag with its default, examples and notes.
type Usage struct {
	Synopsis []string // command lines without the program name's "usage: " prefix
	Summary  string   // one paragraph
	Examples []string // command lines, each optionally followed by "  # what it does"
	Notes    string   // printed last as it is (a glossary of the output), or ""
}

// NewFlagSet returns the flag set of the command name: errors are
// returned (flag.ContinueOnError) and printed on stderr, and -h, -help or
// a wrong flag prints u with the flags. A command returns ExitOK when its
// Parse returns flag.ErrHelp.
func NewFlagSet(name string, stderr io.Writer, u Usage) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { u.Write(fs.Output(), fs) }
	return fs
}

// Parse parses args with fs as fs.Parse does, and names, in the error of a
// flag that fs does not define, the defined flag closest to it:
// "flag provided but not defined: -confg (did you mean -config?)", both
// in the line fs prints and in the error returned.
func Parse(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	var buf bytes.Buffer
	fs.SetOutput(&buf)
	err := fs.Parse(args)
	fs.SetOutput(out)
	printed := buf.String()
	if hint := flagHint(fs, err); hint != "" {
		old := err.Error()
		err = &hintError{err, hint}
		printed = strings.Replace(printed, old+"\n", err.Error()+"\n", 1)
	}
	io.WriteString(out, printed)
	return err
}

// flagHint returns " (did you mean -name?)" for an error of fs.Parse
// about an undefined flag close to a defined one, else "".
func flagHint(fs *flag.FlagSet, err error) string {
	if err == nil {
		return ""
	}
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if c := suggest.Closest(name, names); c != "" {
		return " (did you mean -" + c + "?)"
	}
	return ""
}

// hintError is a flag error with a suggestion appended.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() + e.hint }
func (e *hintError) Unwrap() error { return e.err }

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
	io.WriteString(w, u.Notes)
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
