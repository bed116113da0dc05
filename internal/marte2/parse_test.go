package marte2

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// dump prints a tree compactly: name=value for leaves (values as
// Value.String, with the position of the value), name{...} for blocks.
func dump(n Node) string {
	var b strings.Builder
	for c := range n.Children() {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.Name() + "@" + strconv.Itoa(c.Pos().Line) + ":" + strconv.Itoa(c.Pos().Col))
		if c.IsBlock() {
			b.WriteString("{" + dump(c) + "}")
		} else {
			b.WriteString("=" + c.Value().String())
		}
	}
	return b.String()
}

func TestParse(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"A = 1", "A@1:1=1"},
		{"A=1 B=two,C=\"three\"", `A@1:1=1 B@1:5=two C@1:11="three"`},
		{"+Obj = {\n  Class = X\n  $Y = { Z = -1.5e3 }\n}", "+Obj@1:1{Class@2:3=X $Y@3:3{Z@3:10=-1.5e3}}"},
		{"V = { a b, c }", "V@1:1={ a b c }"},
		{"M = { {1 2} {3 4} { 5, 6 } }", "M@1:1={ { 1 2 } { 3 4 } { 5 6 } }"},
		{"C = (uint8) { 1 2 }", "C@1:1=(uint8) { 1 2 }"},
		{"E = (float64 | \"A + 2\")", `E@1:1=(float64 | "A + 2")`},
		// Comments anywhere between tokens, and right after a bare one.
		{"// head\nA = 1 // tail\n/* block\n comment */ B = 2/*x*/C = 3//d", "A@2:1=1 B@4:13=2 C@4:23=3"},
		{"A = x//comment", "A@1:1=x"},
		// A quoted string keeps separators, terminals, comment markers and
		// newlines; escapes are resolved.
		{"S = \"a b,{}=//x\n\\\"q\\\" \\t\\\\ \\z\"", `S@1:1="a b,{}=//x\n\"q\" \t\\ \\z"`},
		// A quote inside a bare string is a character.
		{`B = a"b`, `B@1:1=a"b`},
		// ';' separates, as in hand-written examples.
		{"Sig = { Type = float32; Unit = \"V\"; }", `Sig@1:1{Type@1:9=float32 Unit@1:25="V"}`},
		// Columns count characters.
		{"U = \"µs\" W = 2", `U@1:1="µs" W@1:10=2`},
		// UTF-8 names, and a backslash before a character that is no
		// escape; a comment need not be UTF-8.
		{"Grüße = a\\µ // caf\xe9\nB = 1", `Grüße@1:1=a\µ B@2:1=1`},
		// A leaf may be redefined; Leaf reads the last.
		{"A = 1\nA = 2", "A@1:1=1 A@2:1=2"},
		{"+A = { B = 1 }\nA = 3", "+A@1:1{B@1:8=1} A@2:1=3"},
	} {
		root, err := Parse("t.cfg", []byte(tc.in))
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got := dump(root); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
	root, _ := Parse("t.cfg", []byte("A = 1\nA = 2"))
	if s, _ := root.Leaf("A").Value().Text(); s != "2" {
		t.Errorf("Leaf(A) = %s, want the last definition 2", s)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "t.cfg:1:1: empty configuration: no definition"},
		{"// only a comment\n", "t.cfg:2:1: empty configuration: no definition"},
		{"A", `t.cfg:1:2: expected '=' after "A", got end of file`},
		{"A 1", `t.cfg:1:3: expected '=' after "A", got 1`},
		{"A = ", "t.cfg:1:5: unexpected end of file: expected a value"},
		{"A = }", "t.cfg:1:5: expected a value, got '}'"},
		{"1 = 2", "t.cfg:1:1: expected a name, got the number 1"},
		{`"" = 2`, "t.cfg:1:1: expected a name, got an empty string"},
		{"= 2", "t.cfg:1:1: expected a name, got '='"},
		{"#include \"x.cfg\"", "t.cfg:1:1: #include: a C preprocessor directive; import the preprocessed file (gcc -x c -P -E app.cfg), as MARTe2's build does"},
		{"A = {}", "t.cfg:1:6: empty vector or block: MARTe2 needs at least one element"},
		{"A = { B = 1", "t.cfg:1:12: unexpected end of file: a block is not closed"},
		{"A = 1 }", "t.cfg:1:7: unexpected '}': no block to close"},
		{"A = { 1 2", "t.cfg:1:10: unexpected end of file: expected a value"},
		{"A = { 1 = 2 }", "t.cfg:1:9: expected a value, got '='"},
		{"A = { {1 2} {3} }", "t.cfg:1:13: matrix row 2 has 1 elements, row 1 has 2"},
		{"A = { {1 2} 3 }", "t.cfg:1:13: expected '}' to close the matrix, got 3"},
		{"A = (uint8 1", "t.cfg:1:12: expected ')' to close the cast, got 1"},
		{"A = (", "t.cfg:1:6: expected a type name after '(', got end of file"},
		{"A = (float64 | )", "t.cfg:1:16: expected an expression after '|', got ')'"},
		{"+A = { B = 1 }\n+A = { C = 2 }", `t.cfg:2:1: "+A" defined twice in the same block (first at line 1, column 1); MARTe2 refuses a block that reuses a name`},
		{"A = 1\nA = { B = 1 }", `t.cfg:2:1: "A" defined twice in the same block (first at line 1, column 1); MARTe2 refuses a block that reuses a name`},
		// Names compare as read, escapes resolved; the first block that
		// reuses a name is the one refused, whatever the names' order.
		{"\"A\\n\" = 1 B = { X = 1 } \"A\n\" = { C = 2 } B = { Y = 2 }", `t.cfg:1:25: "A\n" defined twice in the same block (first at line 1, column 1); MARTe2 refuses a block that reuses a name`},
		{"Z = 1 Y = 2 X = 3 W = 4 V = 5 U = 6 T = 7 S = 8 R = 9 Q = { A = 1 } Z = { A = 1 } Q = 2", `t.cfg:1:69: "Z" defined twice in the same block (first at line 1, column 1); MARTe2 refuses a block that reuses a name`},
		{"A = \"abc", `t.cfg:1:5: string never closed: '"' without a closing '"'`},
		{"A = 1 /* open", "t.cfg:1:7: comment never closed: '/*' without '*/'"},
		{"A = 1\x00", "t.cfg:1:6: NUL byte: not a text file"},
		// A closing quote ends the string: y is the next name.
		{`A = "x"y B = 1`, `t.cfg:1:10: expected '=' after "y", got B`},
		// Names and values are UTF-8 (they go into TOML): a Latin-1 byte
		// is refused where it is, not replaced.
		{"Ab\xff = 1", "t.cfg:1:3: byte 0xff is not UTF-8: names and values must be UTF-8 text (convert the file, e.g. iconv -f latin1 -t utf-8)"},
		{"+A = {\n  Unit = \"\xb5s\"\n}", "t.cfg:2:11: byte 0xb5 is not UTF-8: names and values must be UTF-8 text (convert the file, e.g. iconv -f latin1 -t utf-8)"},
		{"A = { 1 \\\xe9 }", "t.cfg:1:10: byte 0xe9 is not UTF-8: names and values must be UTF-8 text (convert the file, e.g. iconv -f latin1 -t utf-8)"},
		{"A = \"µ\x80\"", "t.cfg:1:7: byte 0x80 is not UTF-8: names and values must be UTF-8 text (convert the file, e.g. iconv -f latin1 -t utf-8)"},
	} {
		_, err := Parse("t.cfg", []byte(tc.in))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.in, err, tc.want)
		}
		var pe *Error
		if err != nil && !errors.As(err, &pe) {
			t.Errorf("%q: %T is not an *Error", tc.in, err)
		}
	}
}

// Every bound on the input is enforced, and the largest input within it
// parses.
func TestParseLimits(t *testing.T) {
	nest := func(n int) string {
		return strings.Repeat("A = { ", n) + "B = 1" + strings.Repeat(" }", n)
	}
	fill := func(n int) string { // a file of exactly n bytes
		return "A = " + strings.Repeat(" ", n-5) + "1"
	}
	for _, tc := range []struct {
		name, in, want string // want "" for success
	}{
		{"size at limit", fill(MaxFileSize), ""},
		{"size over limit", fill(MaxFileSize + 1), "t.cfg:1:1: file larger than 4194304 bytes"},
		{"depth at limit", nest(MaxDepth), ""},
		{"depth over limit", nest(MaxDepth + 1), "t.cfg:1:389: blocks nested deeper than 64"},
		{"bare token at limit", "A = " + strings.Repeat("x", MaxTokenLen), ""},
		{"bare token over limit", "A = " + strings.Repeat("x", MaxTokenLen+1), "t.cfg:1:5: name or value longer than 16384 bytes"},
		{"quoted token at limit", `A = "` + strings.Repeat("x", MaxTokenLen) + `"`, ""},
		{"quoted token over limit", `A = "` + strings.Repeat("x", MaxTokenLen+1) + `"`, "t.cfg:1:5: string longer than 16384 bytes"},
	} {
		_, err := Parse("t.cfg", []byte(tc.in))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("%s: got %v, want %s", tc.name, err, tc.want)
		}
	}
}

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{MaxFileSize, MaxFileSize + 1} {
		p := filepath.Join(dir, strconv.Itoa(n)+".cfg")
		if err := os.WriteFile(p, []byte("A = "+strings.Repeat("1", n-4)), 0o644); err != nil {
			t.Fatal(err)
		}
		data, err := ReadFile(p)
		if n <= MaxFileSize && (err != nil || len(data) != n) {
			t.Errorf("%d bytes: %d read, %v", n, len(data), err)
		}
		if n > MaxFileSize && (err == nil || !strings.Contains(err.Error(), "file larger than 4194304 bytes")) {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
}

// TestParseMARTe2Files parses the configurations in the directories listed
// in STREAMERD_MARTE2_CFG (colon-separated), e.g. MARTe2's documentation
// examples run through the C preprocessor as MARTe2's build does, and
// reports every failure. It skips when the variable is not set.
func TestParseMARTe2Files(t *testing.T) {
	dirs := os.Getenv("STREAMERD_MARTE2_CFG")
	if dirs == "" {
		t.Skip("STREAMERD_MARTE2_CFG not set")
	}
	ok, failed := 0, 0
	for _, d := range filepath.SplitList(dirs) {
		files, _ := filepath.Glob(filepath.Join(d, "*.cfg"))
		for _, f := range files {
			data, err := ReadFile(f)
			if err == nil {
				_, err = Parse(f, data)
			}
			if err != nil {
				failed++
				t.Log(err)
				continue
			}
			ok++
		}
	}
	t.Logf("%d parsed, %d failed", ok, failed)
}
