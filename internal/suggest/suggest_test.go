package suggest

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"config", "config", 0},
		{"confg", "config", 1},   // deletion
		{"configg", "config", 1}, // insertion
		{"conf1g", "config", 1},  // substitution
		{"Prot", "Port", 1},      // swap of neighbours
		{"ca", "abc", 3},         // optimal string alignment: no edit of a swapped pair
		{"Frequncy", "Frequency", 1},
		{"kitten", "sitting", 3},
		{"µs", "us", 1}, // characters, not bytes
	} {
		if got := Distance(c.a, c.b); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
		if got := Distance(c.b, c.a); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.b, c.a, got, c.d)
		}
	}
}

func TestClosest(t *testing.T) {
	flags := []string{"config", "http", "check", "describe", "log-level", "log-format", "import-marte2", "version"}
	keys := []string{"Name", "Class", "Signals", "Port", "MaxPayloadSize", "Address", "AllowedClients", "CPUMask", "Priority"}
	for _, c := range []struct {
		word  string
		among []string
		want  string
	}{
		{"confg", flags, "config"},
		{"cnofig", flags, "config"},
		{"htp", flags, "http"},
		{"log-levle", flags, "log-level"},
		{"verison", flags, "version"},
		{"x", flags, ""},
		{"no-such-flag", flags, ""},
		{"Prot", keys, "Port"},
		{"port", keys, "Port"}, // case alone
		{"PORT", keys, "Port"},
		{"Adress", keys, "Address"},
		{"MaxPayload", keys, ""}, // four edits away
		{"Colour", keys, ""},
		{"Ap", []string{"App", "Threads", "GAMs", "DataSources"}, "App"},
		{"loss", []string{"loss_probability", "loss_every_n"}, ""},
		{"Port", keys, ""}, // a valid name suggests nothing
		{"", keys, ""},
		{strings.Repeat("P", 1<<20), keys, ""},
	} {
		if got := Closest(c.word, c.among); got != c.want {
			t.Errorf("Closest(%.20q) = %q, want %q", c.word, got, c.want)
		}
	}
}

// A tie goes to the first candidate, so the suggestion does not depend on
// map order anywhere.
func TestClosestTie(t *testing.T) {
	if got := Closest("cat", []string{"bat", "cap", "car"}); got != "bat" {
		t.Errorf("got %q", got)
	}
}
