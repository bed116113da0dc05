package config

import (
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/streamerd/streamerd/internal/httpguard"

	"github.com/streamerd/streamerd/rt/cpu"
)

// valueType is the type of a key: how a decoded TOML value becomes a T,
// with the range or values it allows, and how a T prints as TOML.
type valueType[T any] struct {
	kind    string // TOML type for the docs: "integer", "string", ...
	allowed string // range or values for the docs; "" when any
	// read converts v, reporting what is wrong at r; ok is false when the
	// field should keep its default.
	read   func(r at, v any) (x T, ok bool)
	format func(T) string
}

// at reports errors at a key of a table, or at an element of its array.
type at struct {
	t   *tbl
	key string
}

func (r at) errf(format string, args ...any) { r.t.errf(r.key, format, args...) }

func (r at) elemErrf(i int, format string, args ...any) {
	r.t.d.errf(r.t.at(r.key)+"["+strconv.Itoa(i)+"]", format, args...)
}

// wrong reports a value of the wrong TOML type.
func (r at) wrong(what string, v any) { r.errf("expected %s, got %s", what, kind(v)) }

// kind names the TOML type of a decoded value.
func kind(v any) string {
	switch v := v.(type) {
	case string:
		return "string " + quote(v)
	case int64:
		return "integer " + strconv.FormatInt(v, 10)
	case float64:
		return "float " + strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return "boolean " + strconv.FormatBool(v)
	case []any, []map[string]any:
		return "array"
	case map[string]any:
		return "table"
	}
	return "date/time"
}

// integerType is a Go integer field a TOML integer is stored in.
type integerType interface {
	~int | ~int32 | ~int64 | ~uint32 | ~uint64
}

// integer is an integer in [min, max]. Keys whose range is the producer's
// rule use anyInt, whose bound only keeps a Go int the same on every
// platform.
func integer[N integerType](min, max int64) valueType[N] {
	what := fmt.Sprintf("an integer %d..%d", min, max)
	allowed := fmt.Sprintf("%d..%d", min, max)
	switch {
	case min == math.MinInt32 && max == math.MaxInt32:
		what, allowed = "an integer", ""
	case max == math.MaxInt64:
		allowed = fmt.Sprintf("≥ %d", min)
	}
	return valueType[N]{
		kind:    "integer",
		allowed: allowed,
		read: func(r at, v any) (N, bool) {
			n, ok := v.(int64)
			if !ok {
				r.wrong(what, v)
				return 0, false
			}
			if n < min || n > max {
				r.errf("must be %d..%d, got %d", min, max, n)
				return 0, false
			}
			return N(n), true
		},
		format: func(n N) string { return strconv.FormatInt(int64(n), 10) },
	}
}

// anyInt is an int whose range the producer checks.
func anyInt() valueType[int] { return integer[int](math.MinInt32, math.MaxInt32) }

// countOrAuto is a positive count, or "auto" (read as 0) for one the
// producer chooses; its range is the producer's rule. A 0 written is
// refused: the file writes "auto" or leaves the key out.
func countOrAuto() valueType[int] {
	return valueType[int]{
		kind: "integer or string",
		read: func(r at, v any) (int, bool) {
			switch x := v.(type) {
			case string:
				if x == "auto" {
					return 0, true
				}
				r.errf("expected \"auto\" or an integer, got %q", x)
				return 0, false
			case int64:
				if x == 0 {
					r.errf("must not be 0 (write \"auto\", or leave the key out, for a value chosen by time)")
					return 0, false
				}
				if x < math.MinInt32 || x > math.MaxInt32 {
					r.errf("must be \"auto\" or an integer, got %d", x)
					return 0, false
				}
				return int(x), true
			}
			r.wrong("\"auto\" or an integer", v)
			return 0, false
		},
		format: func(n int) string {
			if n == 0 {
				return `"auto"`
			}
			return strconv.Itoa(n)
		},
	}
}

// port is a UDP or TCP port a file names: 0, which asks the kernel for
// any port or stands for the producer's default, is left out instead.
func port() valueType[int] { return integer[int](1, 65535) }

// number is a finite float; an integer is accepted.
func number() valueType[float64] { return numberIn(math.Inf(-1), math.Inf(1)) }

// numberIn is a finite float in [min, max]; an integer is accepted.
func numberIn(min, max float64) valueType[float64] {
	allowed := ""
	if !math.IsInf(min, 0) {
		allowed = fmt.Sprintf("%g..%g", min, max)
	}
	return valueType[float64]{
		kind:    "number",
		allowed: allowed,
		read: func(r at, v any) (float64, bool) {
			var x float64
			switch n := v.(type) {
			case float64:
				if math.IsNaN(n) || math.IsInf(n, 0) {
					r.errf("must be a finite number, got %v", n)
					return 0, false
				}
				x = n
			case int64:
				x = float64(n)
			default:
				r.wrong("a number", v)
				return 0, false
			}
			if x < min || x > max {
				r.errf("must be %g..%g, got %g", min, max, x)
				return 0, false
			}
			return x, true
		},
		format: formatFloat,
	}
}

// formatFloat prints a float as TOML writes it: 1.0, 0.5, 1e+06.
func formatFloat(x float64) string {
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

func boolean() valueType[bool] {
	return valueType[bool]{
		kind: "boolean",
		read: func(r at, v any) (bool, bool) {
			b, ok := v.(bool)
			if !ok {
				r.wrong("a boolean (true or false)", v)
			}
			return b, ok
		},
		format: strconv.FormatBool,
	}
}

// str is any string.
func str() valueType[string] {
	return valueType[string]{kind: "string", read: readString, format: strconv.Quote}
}

func readString(r at, v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		r.wrong("a string", v)
	}
	return s, ok
}

// oneOf is a string spelt one of values.
func oneOf(values ...string) valueType[string] {
	return choice(values, values)
}

// choice is a string spelt names[i], read as values[i].
func choice[E any](names []string, values []E) valueType[E] {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return valueType[E]{
		kind:    "string",
		allowed: orList(names),
		read: func(r at, v any) (E, bool) {
			var zero E
			s, ok := readString(r, v)
			if !ok {
				return zero, false
			}
			for i, n := range names {
				if s == n {
					return values[i], true
				}
			}
			r.errf("expected one of %s, got %q", strings.Join(q, ", "), s)
			return zero, false
		},
		format: func(e E) string {
			for i := range values {
				if fmt.Sprint(values[i]) == fmt.Sprint(e) {
					return strconv.Quote(names[i])
				}
			}
			return strconv.Quote(fmt.Sprint(e))
		},
	}
}

// named is a value of an enumeration spelt as its String method says.
func named[E fmt.Stringer](values ...E) valueType[E] {
	names := make([]string, len(values))
	for i, v := range values {
		names[i] = v.String()
	}
	return choice(names, values)
}

// orList writes names for the docs: `a`, `b` or `c`.
func orList(names []string) string {
	var b strings.Builder
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString("`" + n + "`")
	}
	return b.String()
}

// parsed is a string read by the parse function of the type it names;
// spellings lists them for the message.
func parsed[T fmt.Stringer](spellings string, parse func(string) (T, error)) valueType[T] {
	return valueType[T]{
		kind: "string",
		read: func(r at, v any) (T, bool) {
			var zero T
			s, ok := readString(r, v)
			if !ok {
				return zero, false
			}
			x, err := parse(s)
			if err != nil {
				r.errf("expected one of %s, got %q", spellings, s)
				return zero, false
			}
			return x, true
		},
		format: func(x T) string { return strconv.Quote(x.String()) },
	}
}

// duration is a Go duration written as a string; the examples go in the
// message. Its range is the producer's rule.
func duration(example1, example2 string) valueType[time.Duration] {
	return valueType[time.Duration]{
		kind: "string",
		read: func(r at, v any) (time.Duration, bool) {
			s, ok := readString(r, v)
			if !ok {
				return 0, false
			}
			d, err := time.ParseDuration(s)
			if err != nil {
				r.errf("expected a duration such as %q or %q, got %q", example1, example2, s)
				return 0, false
			}
			return d, true
		},
		format: func(d time.Duration) string { return strconv.Quote(d.String()) },
	}
}

// millis is an integer number of milliseconds.
func millis() valueType[time.Duration] {
	i := anyInt()
	return valueType[time.Duration]{
		kind: "integer",
		read: func(r at, v any) (time.Duration, bool) {
			n, ok := i.read(r, v)
			return time.Duration(n) * time.Millisecond, ok
		},
		format: func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) },
	}
}

// millisFloat is a number of milliseconds.
func millisFloat() valueType[time.Duration] {
	f := numberIn(-1e9, 1e9)
	return valueType[time.Duration]{
		kind: "number",
		read: func(r at, v any) (time.Duration, bool) {
			x, ok := f.read(r, v)
			return time.Duration(x * float64(time.Millisecond)), ok
		},
		format: func(d time.Duration) string { return formatFloat(float64(d) / float64(time.Millisecond)) },
	}
}

// cpuMask is a CPU bit mask written as a string ("0x2") or an integer.
func cpuMask() valueType[cpu.Mask] {
	return valueType[cpu.Mask]{
		kind: "string or integer",
		read: func(r at, v any) (cpu.Mask, bool) {
			switch n := v.(type) {
			case int64:
				if n < 0 {
					r.errf("must not be negative, got %d", n)
					return 0, false
				}
				return cpu.Mask(n), true
			case string:
				m, err := cpu.ParseMask(n)
				if err != nil {
					r.errf("expected a CPU bit mask such as \"0x2\", \"0b10\" or 2, got %q", n)
					return 0, false
				}
				return m, true
			}
			r.wrong("a CPU bit mask (string such as \"0x2\" or integer)", v)
			return 0, false
		},
		format: func(m cpu.Mask) string { return strconv.FormatUint(uint64(m), 10) },
	}
}

// list is an array of strings, each read by elem (nil: any string); an
// element elem refuses is reported at its index and left out.
func list[E any](elem func(r at, i int, s string) (E, bool), format func(E) string) valueType[[]E] {
	return valueType[[]E]{
		kind: "array of strings",
		read: func(r at, v any) ([]E, bool) {
			a, ok := v.([]any)
			if !ok {
				r.wrong("an array of strings", v)
				return nil, false
			}
			out := make([]E, 0, len(a))
			for i, e := range a {
				s, ok := e.(string)
				if !ok {
					r.elemErrf(i, "expected a string, got %s", kind(e))
					continue
				}
				if x, ok := elem(r, i, s); ok {
					out = append(out, x)
				}
			}
			return out, true
		},
		format: func(xs []E) string {
			q := make([]string, len(xs))
			for i, x := range xs {
				q[i] = strconv.Quote(format(x))
			}
			return "[" + strings.Join(q, ", ") + "]"
		},
	}
}

// strs is an array of strings.
func strs() valueType[[]string] {
	return list(func(_ at, _ int, s string) (string, bool) { return s, true }, func(s string) string { return s })
}

// hostNames is an array of host names, each without scheme, port or path.
func hostNames() valueType[[]string] {
	return list(func(r at, i int, s string) (string, bool) {
		if err := httpguard.CheckName(s); err != nil {
			r.elemErrf(i, "%v", err)
			return s, false
		}
		return s, true
	}, func(s string) string { return s })
}

// prefixes is an array of CIDR prefixes; a plain address is the prefix of
// that one address.
func prefixes() valueType[[]netip.Prefix] {
	return list(func(r at, i int, s string) (netip.Prefix, bool) {
		pfx, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				r.elemErrf(i, "expected a CIDR prefix such as \"127.0.0.0/8\" or an address, got %q", s)
				return pfx, false
			}
			pfx = netip.PrefixFrom(a, a.BitLen())
		}
		return pfx.Masked(), true
	}, netip.Prefix.String)
}

// hostPort is an address to listen on, host:port, or "" to disable what
// it serves (what), with example in the message. A bad address is
// reported and kept, so no rule about it fires twice.
func hostPort(example, what string) valueType[string] {
	return valueType[string]{
		kind: "string",
		read: func(r at, v any) (string, bool) {
			s, ok := readString(r, v)
			if !ok || s == "" {
				return s, ok
			}
			if _, err := netip.ParseAddrPort(s); err == nil {
				return s, true
			}
			if _, port, ok := strings.Cut(s, ":"); !ok || port == "" || strings.Contains(port, ":") {
				r.errf("expected host:port such as %q or \"\" to disable %s, got %q", example, what, s)
			} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
				r.errf("port must be 0..65535, got %q", port)
			}
			return s, true
		},
		format: strconv.Quote,
	}
}
