package marte2

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestBytesString(t *testing.T) {
	b := []byte("abcdef")
	s := bytesString(b)
	if s != "abcdef" || !within(s[2:4], s) || within(strings.Clone(s[2:4]), s) || within("", s) || within(s, "") {
		t.Fatalf("bytesString or within wrong")
	}
	b[0] = 'X' // the string is the bytes
	if s[0] != 'X' {
		t.Fatalf("bytesString copied")
	}
	if bytesString(nil) != "" {
		t.Fatalf("bytesString(nil)")
	}
}

// The tree refers to the file's bytes instead of copying them, but what
// Import returns does not: overwriting the bytes after the import
// changes nothing in the result.
func TestImportKeepsNoData(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.cfg"))
	for _, f := range files {
		orig, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, partial := range []bool{false, true} {
			want, wantErr := Import("x.cfg", bytes.Clone(orig), Options{Partial: partial})
			data := bytes.Clone(orig)
			got, gotErr := Import("x.cfg", data, Options{Partial: partial})
			for i := range data {
				data[i] = 'X'
			}
			if !reflect.DeepEqual(want, got) || errText(wantErr) != errText(gotErr) {
				t.Errorf("%s: the result changed when the file's bytes were overwritten", f)
			}
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
