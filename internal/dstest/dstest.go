// Package dstest checks, for the producers' tests, what the DataSource contract asks of every producer.
package dstest

import (
	"errors"
	"testing"

	"github.com/streamerd/streamerd/datasource"
)

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
