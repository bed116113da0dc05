package config

import "time"

// duration returns a duration written as a string ("50us", "1ms"), 0 when
// absent; its range is the producer's rule.
func (t *tbl) duration(key string) time.Duration {
	s := t.str(key, "")
	if !t.isString(key) {
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		t.errf(key, "expected a duration such as \"50us\" or \"1ms\", got %q", s)
		return 0
	}
	return d
}
