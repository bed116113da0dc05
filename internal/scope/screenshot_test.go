package scope

import (
	"os"
	"strings"
	"testing"
)

// TestScreenshotCurrent: the README's picture of the scope was taken with
// the page as it is. A change to the page's files (web/) fails here until
// the picture is taken again:
//
//	go test ./internal/scope -run TestBrowser/FirstScreen -screenshot
func TestScreenshotCurrent(t *testing.T) {
	const file = "../../docs/scope.png.sha256"
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	recorded, _, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
	now, err := pageHash()
	if err != nil {
		t.Fatal(err)
	}
	if recorded != now {
		t.Errorf("docs/scope.png shows the page whose files hash to %s; they hash to %s now: take the picture again with\n"+
			"\tgo test ./internal/scope -run TestBrowser/FirstScreen -screenshot", recorded, now)
	}
}
