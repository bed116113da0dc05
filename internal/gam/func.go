package gam

// Func is a GAM that calls a function each cycle and has no outputs of its
// own: the way embedding code runs a controller or a check in the RT loop.
// The function runs on the RT thread and should neither allocate nor block.
type Func struct {
	name string
	fn   func() error
}

// NewFunc returns a GAM that calls fn on every Execute. A nil fn does nothing.
func NewFunc(name string, fn func() error) *Func { return &Func{name: name, fn: fn} }

// Name returns the GAM's name.
func (f *Func) Name() string { return f.name }

// Execute calls the function and returns its error.
func (f *Func) Execute() error {
	if f.fn == nil {
		return nil
	}
	return f.fn()
}

// Outputs returns nil: a Func has no outputs.
func (f *Func) Outputs() []Output { return nil }
