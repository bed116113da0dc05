// Package docs holds streamerd's reference documentation; its tests check
// that every link in the repository's Markdown resolves inside it and that
// status.md names every field of /status.
package docs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/VictoriaMetrics/metrics"

	"github.com/streamerd/streamerd/datasource"
	"github.com/streamerd/streamerd/datasource/flatudp"
	"github.com/streamerd/streamerd/datasource/rd100s"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/app"
	"github.com/streamerd/streamerd/internal/forensics"
	"github.com/streamerd/streamerd/internal/replay"
)

// TestLinks checks every link of README.md, the other top-level *.md files
// and docs/*.md: a relative link must name a file or directory inside the
// repository, a #fragment must name a heading of the Markdown file it points
// at, and nothing may link outside (no URL scheme, no absolute path).
func TestLinks(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root not found above docs/: %v", err)
	}
	files, err := markdownFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(files, filepath.Join(root, "README.md")) {
		t.Fatalf("README.md not among the files checked: %v", files)
	}
	c := newChecker(root)
	links := 0
	for _, f := range files {
		n, problems, err := c.checkFile(f)
		if err != nil {
			t.Fatal(err)
		}
		links += n
		for _, p := range problems {
			t.Error(p)
		}
	}
	if links == 0 {
		t.Fatal("no links found: the link parser is broken")
	}
	t.Logf("%d links in %d files", links, len(files))
}

// TestLinkChecker feeds the checker a small tree with one link of each kind
// it must accept and refuse.
func TestLinkChecker(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module x\n")
	write("docs/b.md", "# B title\n\n## Class `UDPStreamer` (v1)\n\n## Dup\n\n## Dup\n")
	write("a.md", strings.Join([]string{
		"# A",
		"[ok file](docs/b.md) [ok dir](docs/) [ok anchor](docs/b.md#class-udpstreamer-v1)",
		"[ok self](#a) [ok dup](docs/b.md#dup-1) ![ok image](go.mod)",
		"[ref]: docs/b.md#b-title",
		"`[not a link](nowhere.md)`",
		"```",
		"[not a link either](nowhere.md)",
		"```",
		"[missing](nowhere.md)",
		"[bad anchor](docs/b.md#nope)",
		"[outside](../outside.md)",
		"[web](https://example.com/)",
		"<http://example.com/>",
		"[absolute](/etc/passwd)",
		"[bad self](#zzz)",
		"",
	}, "\n"))
	c := newChecker(root)
	n, problems, err := c.checkFile(filepath.Join(root, "a.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n != 14 {
		t.Errorf("found %d links, want 14", n)
	}
	want := []string{"nowhere.md", "#nope", "../outside.md", "https://example.com/", "http://example.com/", "/etc/passwd", "#zzz"}
	if len(problems) != len(want) {
		t.Errorf("got %d problems, want %d:\n%s", len(problems), len(want), strings.Join(problems, "\n"))
	}
	for _, w := range want {
		found := false
		for _, p := range problems {
			found = found || strings.Contains(p, w)
		}
		if !found {
			t.Errorf("no problem reported for %q", w)
		}
	}
}

func TestHeadingSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Choices streamerd makes":               "choices-streamerd-makes",
		"[[DataSources.Signals]] (all classes)": "datasourcessignals-all-classes",
		"1. Transport":                          "1-transport",
		"Class `RD100S`":                        "class-rd100s",
		"GAM → datagram":                        "gam--datagram",
		"Links: [here](x.md) and_under":         "links-here-and_under",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// markdownFiles returns README.md and the other *.md files at the top of
// the repository, and docs/*.md.
func markdownFiles(root string) ([]string, error) {
	var files []string
	for _, pattern := range []string{"*.md", filepath.Join("docs", "*.md")} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	slices.Sort(files)
	return files, nil
}

type checker struct {
	root    string
	anchors map[string]map[string]bool // by absolute path of a Markdown file
}

func newChecker(root string) *checker {
	return &checker{root: root, anchors: map[string]map[string]bool{}}
}

var (
	fence      = regexp.MustCompile("^\\s{0,3}(```|~~~)")
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
	inlineLink = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	refDef     = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?`)
	autolink   = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9+.-]*:[^\s<>]*)>`)
	scheme     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	heading    = regexp.MustCompile(`^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	linkText   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// prose returns the lines of a Markdown file with fenced code blocks
// blanked, so their contents are neither links nor headings.
func prose(text []byte) []string {
	var lines []string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if fence.MatchString(l) {
			in = !in
			lines = append(lines, "")
			continue
		}
		if in {
			l = ""
		}
		lines = append(lines, l)
	}
	return lines
}

// checkFile returns the number of links in the Markdown file path and one
// message per link that does not resolve.
func (c *checker) checkFile(path string) (links int, problems []string, err error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, err
	}
	rel, _ := filepath.Rel(c.root, path)
	for i, line := range prose(text) {
		line = codeSpan.ReplaceAllString(line, "")
		var targets []string
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		if m := refDef.FindStringSubmatch(line); m != nil {
			targets = append(targets, m[1])
		}
		for _, m := range autolink.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			links++
			if msg := c.check(path, target); msg != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: link %q %s", rel, i+1, target, msg))
			}
		}
	}
	return links, problems, nil
}

// check returns why target, a link in the file from, does not resolve, or "".
func (c *checker) check(from, target string) string {
	switch {
	case target == "":
		return "is empty"
	case scheme.MatchString(target):
		return "points outside the repository (a URL)"
	case strings.HasPrefix(target, "/"):
		return "is an absolute path; use a path relative to the file"
	}
	p, frag, _ := strings.Cut(target, "#")
	p, err := url.PathUnescape(p)
	if err != nil {
		return "is not a valid path: " + err.Error()
	}
	dest := from
	if p != "" {
		dest = filepath.Join(filepath.Dir(from), filepath.FromSlash(p))
		rel, err := filepath.Rel(c.root, dest)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "points outside the repository"
		}
		if _, err := os.Stat(dest); err != nil {
			return "names no file in the repository"
		}
	}
	if frag == "" || !strings.HasSuffix(dest, ".md") {
		return ""
	}
	anchors, err := c.headingAnchors(dest)
	if err != nil {
		return err.Error()
	}
	if !anchors[frag] {
		return "names no heading of " + filepath.Base(dest)
	}
	return ""
}

// headingAnchors returns the fragments that reach the headings of the
// Markdown file path, as GitHub computes them.
func (c *checker) headingAnchors(path string) (map[string]bool, error) {
	if a, ok := c.anchors[path]; ok {
		return a, nil
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a := map[string]bool{}
	seen := map[string]int{}
	for _, l := range prose(text) {
		m := heading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			a[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			a[s] = true
		}
		seen[s]++
	}
	c.anchors[path] = a
	return a, nil
}

// slug is GitHub's anchor for a heading: the text of its links kept, lower
// case, every character but letters, digits, '-', '_' and spaces dropped,
// spaces turned into '-'.
func slug(h string) string {
	h = linkText.ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestStatusFieldsDocumented: every JSON field of /status, the producers'
// included, is named in status.md as `field`.
func TestStatusFieldsDocumented(t *testing.T) {
	doc, err := os.ReadFile("status.md")
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]bool{}
	// The producers' snapshots are theirs: StatusReport of one made from
	// a small configuration, started or not, has the same fields.
	flat, err := flatudp.New(flatudp.Config{Name: "F", Address: "127.0.0.1", Port: 9, ExecutionMode: "RealTimeThread",
		Signals: []datasource.Signal{{Name: "A", Type: datasource.Uint8}}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rc := rd100s.DefaultConfig()
	rc.Name, rc.DestHost, rc.AzimuthSignal, rc.ElevationSignal = "R", "127.0.0.1", "Az", "El"
	rc.Signals = []datasource.Signal{{Name: "Az", Type: datasource.Float64}, {Name: "El", Type: datasource.Float64}}
	rd, err := rd100s.New(rc, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	udps, err := udpstreamer.New(udpstreamer.Config{Name: "U", Signals: []datasource.Signal{{Name: "A", Type: datasource.Uint8}}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	status := func(ds interface{ Internals() any }) any {
		return ds.Internals().(interface{ StatusReport() any }).StatusReport()
	}
	rdStatus := reflect.TypeOf(status(rd))
	events, _ := rdStatus.FieldByName("Events")
	for _, ty := range []reflect.Type{reflect.TypeOf(app.Status{}), reflect.TypeOf(app.ThreadStatus{}), reflect.TypeOf(app.ForceStatus{}),
		reflect.TypeOf(app.Event{}), reflect.TypeOf(status(udps)), reflect.TypeOf(status(flat)), rdStatus, events.Type.Elem(),
		reflect.TypeOf(replay.Status{}), reflect.TypeOf(forensics.Status{}), reflect.TypeOf(forensics.SourceStatus{}),
		reflect.TypeOf(forensics.EventStatus{}), reflect.TypeOf(forensics.EvidenceStatus{})} {
		jsonFields(ty, fields)
	}
	// The degradations have their own JSON form.
	var st struct {
		Degradations map[string]any `json:"degradations"`
	}
	b, _ := json.Marshal(status(rd))
	if err := json.Unmarshal(b, &st); err != nil || len(st.Degradations) == 0 {
		t.Fatalf("degradations of %s: %v", b, err)
	}
	for k := range st.Degradations {
		fields[k] = true
	}
	if len(fields) < 50 {
		t.Fatalf("only %d fields found: the walk is broken", len(fields))
	}
	for f := range fields {
		if !strings.Contains(string(doc), "`"+f+"`") {
			t.Errorf("status.md does not explain the /status field %q", f)
		}
	}
}

// jsonFields adds the JSON names of struct t's fields to fields.
func jsonFields(t reflect.Type, fields map[string]bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
			continue
		case name == "" && f.Anonymous && f.Type.Kind() == reflect.Struct:
			jsonFields(f.Type, fields) // encoding/json inlines its fields
			continue
		case name == "":
			name = f.Name
		}
		fields[name] = true
	}
}

// TestReadmeEmbeddingIsTheExample: README.md's embedding snippet is the
// body of Example in datasource/udpstreamer/example_test.go (which go
// test compiles and runs), without its Output comment.
func TestReadmeEmbeddingIsTheExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	i := strings.Index(section, "## Embedding")
	if i < 0 {
		t.Fatal("README.md has no Embedding section")
	}
	section = section[i:]
	start := strings.Index(section, "```go\n")
	if start < 0 {
		t.Fatal("the Embedding section has no Go block")
	}
	block := section[start+len("```go\n"):]
	block = block[:strings.Index(block, "```")]

	src, err := os.ReadFile(filepath.Join("..", "datasource", "udpstreamer", "example_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	body := string(src)
	j := strings.Index(body, "\nfunc Example() {\n")
	if j < 0 {
		t.Fatal("example_test.go has no func Example")
	}
	body = body[j+len("\nfunc Example() {\n"):]
	body = body[:strings.Index(body, "\n}\n")+1]
	body = body[:strings.Index(body, "\t// Output:")]
	var b strings.Builder
	for line := range strings.Lines(body) {
		b.WriteString(strings.TrimPrefix(line, "\t"))
	}
	if got, want := strings.TrimSpace(block), strings.TrimSpace(b.String()); got != want {
		t.Errorf("README.md's embedding snippet differs from Example's body:\n--- README\n%s\n--- Example\n%s", got, want)
	}
}

// TestEmbeddingNamesEveryMetric: docs/embedding.md names every metric
// family the three producers register, so a renamed or added metric
// fails here until the page says it.
func TestEmbeddingNamesEveryMetric(t *testing.T) {
	doc, err := os.ReadFile("embedding.md")
	if err != nil {
		t.Fatal(err)
	}
	ms := metrics.NewSet()
	sig := []datasource.Signal{{Name: "A", Type: datasource.Uint8}}
	if _, err := udpstreamer.New(udpstreamer.Config{Name: "U", Signals: sig}, ms, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := flatudp.New(flatudp.Config{Name: "F", Address: "127.0.0.1", Port: 9, ExecutionMode: "RealTimeThread", Signals: sig}, ms, nil); err != nil {
		t.Fatal(err)
	}
	rc := rd100s.DefaultConfig()
	rc.Name, rc.DestHost, rc.AzimuthSignal, rc.ElevationSignal = "R", "127.0.0.1", "Az", "El"
	rc.Signals = []datasource.Signal{{Name: "Az", Type: datasource.Float64}, {Name: "El", Type: datasource.Float64}}
	if _, err := rd100s.New(rc, ms, nil); err != nil {
		t.Fatal(err)
	}
	families := map[string]bool{}
	for _, name := range ms.ListMetricNames() {
		name, _, _ = strings.Cut(name, "{")
		for _, class := range []string{"udpstreamer", "flatudp", "rd100s"} {
			if f, ok := strings.CutPrefix(name, "streamerd_"+class+"_"); ok {
				families[f] = true
			}
		}
	}
	if len(families) < 40 {
		t.Fatalf("only %d metric families: %v", len(families), families)
	}
	for f := range families {
		if !strings.Contains(string(doc), "`"+f+"`") {
			t.Errorf("embedding.md does not name the metric %q", f)
		}
	}
}
