package datasource

import "fmt"

// ConfigError is a configuration rule broken by one parameter. It names the
// datasource, the signal (empty for a datasource-level parameter), the
// parameter and the rule, so a config loader can point at the key in its file.
type ConfigError struct {
	DataSource string
	Signal     string // empty for a datasource parameter
	Index      int    // signal index in declaration order, -1 for a datasource parameter
	Parameter  string
	Rule       string
}

func (e *ConfigError) Error() string {
	if e.Signal == "" && e.Index < 0 {
		return fmt.Sprintf("datasource %q: %s: %s", e.DataSource, e.Parameter, e.Rule)
	}
	name := e.Signal
	if name == "" {
		name = fmt.Sprintf("#%d", e.Index)
	}
	return fmt.Sprintf("datasource %q: signal %q: %s: %s", e.DataSource, name, e.Parameter, e.Rule)
}
