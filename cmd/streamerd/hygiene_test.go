package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/streamerd/streamerd/internal/testenv"
)

// daemonBinary is the streamerd the hygiene and abuse tests run: the one
// TestMain built, or $STREAMERD_BINARY (to measure another build, e.g. an
// earlier release, with the same tests).
func daemonBinary() string {
	if b := os.Getenv("STREAMERD_BINARY"); b != "" {
		return b
	}
	return binary
}

// piped is a streamerd whose stderr is a pipe the test holds.
type piped struct {
	cmd    *exec.Cmd
	http   string
	stderr *os.File      // read end
	lines  *bufio.Reader // over stderr
	exited chan error
}

// startPiped starts bin on config with stderr on a pipe, reads it until
// the HTTP address is logged, and leaves the rest unread.
func startPiped(t *testing.T, bin, config string) *piped {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-config", writeConfig(t, config))
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	p := &piped{cmd: cmd, stderr: r, lines: bufio.NewReader(r), exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill(); r.Close() })
	re := regexp.MustCompile(`msg="HTTP listening" address=(\S+)`)
	r.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		line, err := p.lines.ReadString('\n')
		if err != nil {
			t.Fatalf("no HTTP address logged: %v", err)
		}
		if m := re.FindStringSubmatch(line); m != nil {
			p.http = m[1]
			break
		}
	}
	r.SetReadDeadline(time.Time{})
	return p
}

func (p *piped) force(value string) (int, error) {
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Post("http://"+p.http+"/force?signal=Streamer.Setpoint&value="+value, "", nil)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// waitExit returns the exit status, or fails after 10 s.
func (p *piped) waitExit(t *testing.T) error {
	t.Helper()
	return testenv.Receive(t, p.exited, 10*time.Second, "the exit")
}

// The reader of stderr goes away (a closed terminal, `streamerd | head`):
// the next log lines fail with EPIPE, and the daemon carries on.
func TestClosedStderrDoesNotStopTheDaemon(t *testing.T) {
	p := startPiped(t, daemonBinary(), appConfig(freeUDPPort(t)))
	p.stderr.Close()
	for i := range 20 {
		if code, err := p.force(fmt.Sprint(i)); err != nil || code != 200 {
			t.Fatalf("force %d after stderr closed: %d %v", i, code, err)
		}
	}
	select {
	case err := <-p.exited:
		t.Fatalf("daemon died: %v", err)
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.waitExit(t); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}

// Nobody reads stderr and its pipe fills: log lines are dropped and
// counted, and nothing waits for them.
func TestFullStderrDoesNotBlockTheDaemon(t *testing.T) {
	p := startPiped(t, daemonBinary(), appConfig(freeUDPPort(t)))
	for i := range 10000 { // about 1 MB of log lines into a 64 KB pipe
		if code, err := p.force(fmt.Sprint(i)); err != nil || code != 200 {
			t.Fatalf("force %d with stderr full: %d %v", i, code, err)
		}
	}
	resp, err := http.Get("http://" + p.http + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if m := regexp.MustCompile(`streamerd_log_lines_dropped_total (\d+)`).FindSubmatch(body); m == nil || string(m[1]) == "0" {
		t.Errorf("no dropped log lines counted: %q", m)
	}
	go io.Copy(io.Discard, p.stderr) // let the daemon's final lines out
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.waitExit(t); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}

// SIGHUP (the terminal closed) stops the daemon in order, like SIGTERM.
func TestSIGHUPStopsInOrder(t *testing.T) {
	p := startPiped(t, daemonBinary(), appConfig(freeUDPPort(t)))
	rest := make(chan string, 1)
	go func() { b, _ := io.ReadAll(p.lines); rest <- string(b) }()
	p.cmd.Process.Signal(syscall.SIGHUP)
	if err := p.waitExit(t); err != nil {
		t.Fatalf("exit after SIGHUP: %v", err)
	}
	log := <-rest
	for _, w := range []string{`msg=stopping signal=hangup`, `msg="streamerd stopped"`} {
		if !strings.Contains(log, w) {
			t.Errorf("log lacks %q:\n%s", w, log)
		}
	}
}

// -config on a FIFO, a device or an oversized file: one line, exit 1, at
// once (a FIFO would block forever, /dev/zero read forever).
func TestConfigThatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := testenv.Mkfifo(t, filepath.Join(dir, "app.toml"))
	big := testenv.SparseFile(t, filepath.Join(dir, "big.toml"), 16<<20+1)
	for path, want := range map[string]string{
		fifo:        fifo + ": not a regular file (a named pipe)\n",
		"/dev/zero": "/dev/zero: not a regular file (a device)\n",
		dir:         dir + ": not a regular file (a directory)\n",
		big:         big + ": file too large: 16777217 bytes, at most 16777216\n",
	} {
		cmd := exec.Command(daemonBinary(), "-check", "-config", path)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || out.String() != want {
				t.Errorf("-config %s: %v %q, want exit 1 and %q", path, err, out.String(), want)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("-config %s: still running after 10 s", path)
		}
	}
}

// Names /force could not reach, and names that would rewrite a terminal,
// are refused at -check with their position.
func TestCheckRefusesUnreachableAndControlNames(t *testing.T) {
	base := appConfig(44999)
	for _, tc := range []struct{ old, new, want string }{
		{`Name = "Streamer"`, `Name = "Str.eamer"`, `DataSources[0] "Str.eamer": Name: must not contain '.'`},
		{`Name = "Setpoint"`, `Name = "Set\u001b[2Jpoint"`, `DataSources[0] "Streamer" Signals[2] "Set\x1b[2Jpoint": Name: must not contain control or format characters (U+001B at byte 3)`},
		{`Unit = "V"`, `Unit = "V\u001b]0;title\u0007"`, `DataSources[0] "Streamer" Signals[1] "V": Unit: must not contain control or format characters`},
	} {
		text := strings.Replace(base, tc.old, tc.new, 1)
		text = strings.ReplaceAll(text, `DataSource = "Streamer"`, `DataSource = "Str.eamer"`)
		if tc.old != `Name = "Streamer"` {
			text = strings.ReplaceAll(text, `DataSource = "Str.eamer"`, `DataSource = "Streamer"`)
		}
		out, err := exec.Command(daemonBinary(), "-check", "-config", writeConfig(t, text)).CombinedOutput()
		re := regexp.MustCompile(`app\.toml:\d+:\d+: ` + regexp.QuoteMeta(tc.want))
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !re.Match(out) {
			t.Errorf("%s: %v\n%s\nwant %s", tc.new, err, out, tc.want)
		}
	}
}
