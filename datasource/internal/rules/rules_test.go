package rules

import (
	"errors"
	"strings"
	"testing"

	"github.com/streamerd/streamerd/datasource"
)

func TestValidateSignalsNamesEveryRule(t *testing.T) {
	cases := []struct {
		name string
		sigs []datasource.Signal
		want []string
	}{
		{"none", nil, []string{`datasource "ds": Signals: at least one signal`}},
		{"empty name", []datasource.Signal{{Type: datasource.Uint8}}, []string{`signal "#0": Name: must not be empty`}},
		{"duplicate", []datasource.Signal{{Name: "a"}, {Name: "a"}}, []string{`signal "a": Name: duplicates signal #0`}},
		{"bad type", []datasource.Signal{{Name: "a", Type: 12}}, []string{`signal "a": Type: invalid type 12`}},
		{"scalar elements", []datasource.Signal{{Name: "a", NumberOfElements: 4}}, []string{`NumberOfElements: a scalar`}},
		{"1-D zero", []datasource.Signal{{Name: "a", NumberOfDimensions: 1}}, []string{`NumberOfElements: must be 1..`}},
		{"2-D no shape", []datasource.Signal{{Name: "a", NumberOfDimensions: 2, NumberOfElements: 4}}, []string{`Rows/Cols: a matrix needs`}},
		{"2-D mismatch", []datasource.Signal{{Name: "a", NumberOfDimensions: 2, Rows: 2, Cols: 2, NumberOfElements: 5}}, []string{`must equal Rows × Cols = 4, got 5`}},
		{"3-D", []datasource.Signal{{Name: "a", NumberOfDimensions: 3}}, []string{`NumberOfDimensions: must be 0, 1 or 2`}},
		{"all at once", []datasource.Signal{{Name: "", Type: 11}, {Name: "b", NumberOfDimensions: 5}}, []string{`Name: must not be empty`, `invalid type 11`, `NumberOfDimensions`}},
	}
	for _, c := range cases {
		err := ValidateSignals("ds", c.sigs)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not contain %q", c.name, err, w)
			}
		}
		var ce *datasource.ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%s: not a *datasource.ConfigError: %T", c.name, err)
		}
	}
}
