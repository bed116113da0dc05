package scope

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
)

// webFS holds the page: index.html, scope.js, scope.css and the vendored
// uPlot (web/vendor/uplot, MIT). Nothing is fetched from elsewhere, so the
// scope works on a machine without internet.
//
//go:embed web
var webFS embed.FS

// pageHash returns the SHA-256, in hex, of the page's files: each file's
// path and contents, in lexical order. The README's screenshot records the
// hash of the page it shows.
func pageHash() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(webFS, "web", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := webFS.ReadFile(path)
		if err != nil {
			return err
		}
		h.Write([]byte(path))
		h.Write([]byte{0})
		h.Write(b)
		h.Write([]byte{0})
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
}
