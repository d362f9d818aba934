package data

import (
	"slices"
	"testing"
)

func TestParseColumnList(t *testing.T) {
	for in, want := range map[string][]string{
		"":                 nil,
		" , ,":             nil,
		"doc":              {"doc"},
		" doc , thumb ,, ": {"doc", "thumb"},
	} {
		if got := ParseColumnList(in); !slices.Equal(got, want) {
			t.Errorf("ParseColumnList(%q) = %q, want %q", in, got, want)
		}
	}
}
