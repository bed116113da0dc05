package marte2

// checkCharDefaults refuses what MARTe2 refuses in the Default of a char8
// signal, of any GAM or datasource of the application: its configuration
// builder (RealTimeApplicationConfigurationBuilder::WriteDefault) reads
// the Default again, as the text of `Default="<Default>"`, with its
// StandardParser, and refuses the whole application ("Unsupported defined
// default value") when that does not parse. A '"' in the Default (written
// \" in the file) ends that string early; what follows it must then parse
// as more definitions, which a text rarely does. A backslash, a tab or a
// newline in the Default parse.
func (im *importer) checkCharDefaults(a *application) {
	check := func(n Node, typ string, path func() string) {
		l := n.Leaf("Default")
		if typ != "char8" || l.IsZero() {
			return
		}
		s, ok := l.Value().Text()
		if !ok {
			return // MARTe2 reads no string from a vector: nothing to parse again
		}
		if at, ok := rereadDefault(s); !ok {
			im.errorf(l.Value().Pos(), "%s: Default %s: MARTe2 refuses the whole application (\"Unsupported defined default value\"): it reads a char8 Default again between quotes, where the '\"' at byte %d ends it early and what follows does not parse", path(), l.Value(), at+1)
		}
	}
	for _, g := range a.gams {
		for _, s := range g.inputs() {
			im.steps++
			check(s.node(), signalType(s), s.String)
		}
		for _, s := range g.outputs() {
			im.steps++
			check(s.node(), signalType(s), s.String)
		}
	}
	for _, ds := range a.sources {
		for _, d := range ds.signals {
			im.steps++
			if !d.node().IsZero() {
				check(d.node(), d.typ(), d.path)
			}
		}
	}
}

// signalType returns the type of a GAM signal: its own, or its
// datasource's.
func signalType(s *gamSignal) string {
	if t := s.typ(); t != "" || s.sig == nil {
		return t
	}
	return s.sig.typ()
}

// rereadDefault reports whether MARTe2's StandardParser reads
// `Default="<s>"`, as its configuration builder does with a char8
// Default s; when it does not, at is the byte of s whose '"' ends the
// string early. The string runs to the first '"' not after a backslash;
// one that runs to the end of the input is read up to there, as MARTe2's
// lexer does. What follows an early '"' must be definitions.
func rereadDefault(s string) (at int, ok bool) {
	w := s + `"`
	i := 0
	for i < len(w) && w[i] != '"' {
		if w[i] == '\\' {
			i++ // the next character is escaped (or kept): it ends nothing
		}
		i++
	}
	if i >= len(w)-1 {
		return 0, true // the closing quote, or the end of the input
	}
	if _, err := Parse("", []byte(w[i+1:])); err == nil {
		return 0, true
	}
	return i, false
}
