// Package dstest checks, for the producers' tests, what the DataSource contract asks of every producer (test-only: only _test.go files import it).
package dstest

import (
	"errors"
	"testing"

	"github.com/streamerd/streamerd/datasource"
)

// Start allocates ds's memory and starts it, as an application does,
// failing tb on an error; ds is stopped when tb ends.
func Start(tb testing.TB, ds datasource.DataSource) {
	tb.Helper()
	if err := ds.AllocateMemory(); err != nil {
		tb.Fatal(err)
	}
	if err := ds.PrepareNextState(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ds.Stop() })
}

// Lifecycle drives ds, fresh from its New, through MARTe2's order with
// misplaced calls thrown in: each fails with its lifecycle error, and Stop
// is safe before the start, after it and twice. It leaves ds stopped.
func Lifecycle(t testing.TB, ds datasource.DataSource) {
	t.Helper()
	want := func(what string, err, target error) {
		t.Helper()
		if !errors.Is(err, target) {
			t.Errorf("%s: %v, want %v", what, err, target)
		}
	}
	want("PrepareNextState before AllocateMemory", ds.PrepareNextState(), datasource.ErrNotAllocated)
	want("Stop before the start", ds.Stop(), nil)
	if err := ds.AllocateMemory(); err != nil {
		t.Fatal(err)
	}
	want("second AllocateMemory", ds.AllocateMemory(), datasource.ErrAllocatedTwice)
	if err := ds.PrepareNextState(); err != nil {
		t.Fatal(err)
	}
	want("second PrepareNextState", ds.PrepareNextState(), datasource.ErrPreparedTwice)
	want("Stop", ds.Stop(), nil)
	want("second Stop", ds.Stop(), nil)
}

// Opener drives two datasources from newDS, each fresh from its New,
// through the datasource.Opener steps: Open before AllocateMemory fails,
// Open twice fails, Stop after Open alone returns (closing the sockets
// without a network thread to stop), and PrepareNextState after Open
// starts without opening again. It leaves both stopped.
func Opener(t testing.TB, newDS func() datasource.DataSource) {
	t.Helper()
	for _, prepare := range []bool{false, true} {
		o, ok := newDS().(datasource.Opener)
		if !ok {
			t.Fatal("not a datasource.Opener")
		}
		if err := o.Open(); !errors.Is(err, datasource.ErrNotAllocated) {
			t.Errorf("Open before AllocateMemory: %v, want %v", err, datasource.ErrNotAllocated)
		}
		if err := o.AllocateMemory(); err != nil {
			t.Fatal(err)
		}
		if err := o.Open(); err != nil {
			t.Fatal(err)
		}
		if err := o.Open(); !errors.Is(err, datasource.ErrPreparedTwice) {
			t.Errorf("second Open: %v, want %v", err, datasource.ErrPreparedTwice)
		}
		if prepare {
			if err := o.PrepareNextState(); err != nil {
				t.Fatalf("PrepareNextState after Open: %v", err)
			}
			if err := o.PrepareNextState(); !errors.Is(err, datasource.ErrPreparedTwice) {
				t.Errorf("second PrepareNextState: %v, want %v", err, datasource.ErrPreparedTwice)
			}
		}
		if err := o.Stop(); err != nil {
			t.Errorf("Stop (prepared %v): %v", prepare, err)
		}
	}
}
