package parquet

import (
	"errors"
	"testing"
)

// A parquet-go panic recovered by guard names what was done to which file
// once, however many callers put it in context; other errors get the
// context.
func TestGuardedPanicsAreNamedOnce(t *testing.T) {
	err := guard("f.parquet", "close", func() error { panic("index out of range") })
	for range 2 {
		err = inContext("close", "f.parquet", err)
	}
	if got, want := err.Error(), "close f.parquet: parquet: index out of range"; got != want {
		t.Errorf("recovered panic reads %q, want %q", got, want)
	}
	plain := inContext("close", "f.parquet", guard("f.parquet", "close", func() error { return errors.New("disk full") }))
	if got, want := plain.Error(), "close f.parquet: disk full"; got != want {
		t.Errorf("error reads %q, want %q", got, want)
	}
}
