package testenv

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// CheckExposition checks the Prometheus text of a /metrics body and
// returns its families and their types. Every line is printable ASCII
// (label values included); every family has exactly one # TYPE line and
// one # HELP line with text before its samples; help that names no unit
// is allowed only where the name has none, a family ending in _seconds or
// _bytes (before _total) saying "seconds" or "bytes"; and every name
// follows MetricNameRule.
func CheckExposition(tb testing.TB, text string) map[string]string {
	tb.Helper()
	types := map[string]string{}
	helped := map[string]int{}
	typed := map[string]int{}
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		for _, c := range []byte(line) {
			if c < 0x20 || c > 0x7e {
				tb.Errorf("line %d is not printable ASCII: %q", i+1, line)
				break
			}
		}
		if rest, ok := strings.CutPrefix(line, "# HELP "); ok {
			family, help, _ := strings.Cut(rest, " ")
			helped[family]++
			if strings.TrimSpace(help) == "" {
				tb.Errorf("line %d: %s has no help", i+1, family)
			} else if unit := unitOf(family); unit != "" && !strings.Contains(help, unit) {
				tb.Errorf("line %d: the help of %s does not say its unit, %s: %q", i+1, family, unit, help)
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			family, typ, _ := strings.Cut(rest, " ")
			typed[family]++
			types[family] = typ
			if helped[family] == 0 {
				tb.Errorf("line %d: # TYPE %s before its # HELP", i+1, family)
			}
			continue
		}
		family, _, _ := strings.Cut(strings.Fields(line)[0], "{")
		base := family
		for _, suffix := range []string{"_sum", "_count", "_bucket"} {
			if typed[base] == 0 {
				base = strings.TrimSuffix(base, suffix)
			}
		}
		if typed[base] == 0 {
			tb.Errorf("line %d: no # TYPE before %s", i+1, family)
		}
	}
	for f, n := range typed {
		if n != 1 || helped[f] != 1 {
			tb.Errorf("%s: %d # TYPE and %d # HELP lines", f, n, helped[f])
		}
	}
	for f := range helped {
		if typed[f] == 0 {
			tb.Errorf("%s: # HELP without # TYPE", f)
		}
	}
	for _, f := range slices.Sorted(maps.Keys(types)) {
		if msg := MetricNameRule(f, types[f]); msg != "" {
			tb.Errorf("%s (%s): %s", f, types[f], msg)
		}
	}
	return types
}

// unitOf returns the base unit a family's name ends in ("seconds",
// "bytes"), _total aside, or "".
func unitOf(family string) string {
	name := strings.TrimSuffix(family, "_total")
	for _, u := range baseUnits {
		if strings.HasSuffix(name, "_"+u) {
			return u
		}
	}
	return ""
}

// baseUnits are the units of Prometheus's naming rules that /metrics uses.
var baseUnits = []string{"seconds", "bytes"}

// otherUnits are the words of units that are not base units: a name
// carries seconds and bytes, never these.
var otherUnits = []string{"ns", "us", "ms", "nanoseconds", "microseconds", "milliseconds", "millis", "minutes", "hours", "days",
	"kb", "mb", "gb", "kib", "mib", "gib", "kilobytes", "megabytes", "gigabytes", "bits", "percent", "pct"}

var metricName = regexp.MustCompile(`^(streamerd|go|process)_[a-z0-9_]*[a-z0-9]$`)

// MetricNameRule returns which of Prometheus's naming rules the family
// name of type typ breaks, or "": a program prefix (streamerd_, or go_ and
// process_ for the runtime) and lower-case snake case; _total on counters
// and only on them; no _count, _sum or _bucket, the suffixes histograms
// and summaries add; a base unit (seconds, bytes), if any, as the last word
// before _total, never a unit of another scale (ms, us, kb, percent...).
func MetricNameRule(name, typ string) string {
	if !metricName.MatchString(name) || strings.Contains(name, "__") {
		return "want streamerd_, go_ or process_ and lower-case words joined by single underscores"
	}
	total := strings.HasSuffix(name, "_total")
	switch {
	case typ == "counter" && !total:
		return "a counter's name ends in _total"
	case typ != "counter" && total:
		return "only a counter's name ends in _total"
	}
	for _, s := range []string{"_count", "_sum", "_bucket"} {
		if strings.HasSuffix(name, s) {
			return "ends in " + s + ", a suffix of the series of histograms and summaries"
		}
	}
	words := strings.Split(strings.TrimSuffix(name, "_total"), "_")
	for i, w := range words {
		if slices.Contains(otherUnits, w) {
			return "unit " + w + ": use a base unit, seconds or bytes"
		}
		if slices.Contains(baseUnits, w) && i != len(words)-1 {
			return "the unit " + w + " comes last, before _total only"
		}
	}
	return ""
}
