package docs

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/datasource/flatudp"
	"github.com/streamerd/streamerd/datasource/rd100s"
	"github.com/streamerd/streamerd/datasource/udpstreamer"
	"github.com/streamerd/streamerd/internal/app"
)

// TestStatusFieldsDocumented: every JSON field of /status, the producers'
// included, is named in status.md as `field`.
func TestStatusFieldsDocumented(t *testing.T) {
	doc, err := os.ReadFile("status.md")
	if err != nil {
		t.Fatal(err)
	}
	fields := map[string]bool{}
	for _, v := range []any{app.Status{}, app.ThreadStatus{}, app.ForceStatus{}, app.Event{},
		udpstreamer.Status{}, flatudp.Status{}, rd100s.Status{}, rd100s.Event{}} {
		jsonFields(reflect.TypeOf(v), fields)
	}
	// Degradations has its own JSON form.
	var d map[string]any
	b, _ := json.Marshal(rd100s.Degradations{})
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	for k := range d {
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
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		fields[name] = true
	}
}
