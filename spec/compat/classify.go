package compat

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// recognisers say, per annotation, whether a reader's type for the column
// shows the type: the spellings of a fixed-size float array (DuckDB
// FLOAT[3], arrow-go fixed_size_list<…>[3], apache-arrow FixedSizeList[3]),
// of FILE, of VARIANT. FIXED_SIZE_LIST (PR #241) is recognised as VECTOR is.
var recognisers = map[string]*regexp.Regexp{
	"FILE":   regexp.MustCompile(`\bFILE\b`),
	"VECTOR": regexp.MustCompile(`(?i)\bVECTOR\b|fixed_?size_?list|\[\d+\]$`),
	// PR #241's FIXED_SIZE_LIST shows as the same fixed-size arrays.
	"FIXED_SIZE_LIST": regexp.MustCompile(`(?i)\bVECTOR\b|fixed_?size_?list|\[\d+\]$`),
	"VARIANT":         regexp.MustCompile(`(?i)\bVARIANT\b`),
}

// Classify classes one reader's outcome on c: err from the read (a
// *CrashError is a crash, any other error a clean error), else the values
// compared with c's expected rows (spec/COMPAT.md, "Decision rules"):
//
//   - typed: the rows equal c.Rows, the column is annotated, and either the
//     physical rows differ from the meaning (so the reader must have applied
//     the type) or the reader's type for the column shows the annotation;
//   - physical: the rows equal c.PhysicalRows, or c.Rows without the type
//     shown;
//   - wrong: anything else, the note naming the first difference.
func Classify(c Case, out *Output, err error) Cell {
	if err != nil {
		// The note names the file by its base name, the same on every machine.
		var crash *CrashError
		if errors.As(err, &crash) {
			return Cell{Class: Crash, Note: firstWords(strings.ReplaceAll(crash.Detail, c.Path, filepath.Base(c.Path)))}
		}
		return Cell{Class: Error, Note: firstWords(strings.ReplaceAll(err.Error(), c.Path, filepath.Base(c.Path)))}
	}
	if out == nil {
		return Cell{Class: Crash, Note: "no output and no error"}
	}
	got, nerr := normalise(out.Rows)
	if nerr != nil {
		return Cell{Class: Wrong, Note: "values do not encode as JSON: " + firstWords(nerr.Error())}
	}
	gotRows, _ := got.([]any)
	if out.Rows == nil {
		gotRows = []any{}
	}
	meaning, merr := normalise(c.Rows)
	if merr != nil {
		return Cell{Class: Wrong, Note: "expected rows: " + merr.Error()}
	}
	physical := meaning
	if c.PhysicalRows != nil {
		if physical, merr = normalise(c.PhysicalRows); merr != nil {
			return Cell{Class: Wrong, Note: "expected physical rows: " + merr.Error()}
		}
	}
	colType := ""
	for _, col := range out.Columns {
		if col.Name == c.Column {
			colType = col.Type
		}
	}
	meaningDiff := diffRows(meaning, gotRows)
	if meaningDiff == "" && c.Annotation != "" {
		shown := recognisers[c.Annotation] != nil && recognisers[c.Annotation].MatchString(colType)
		if c.PhysicalRows != nil || shown {
			return Cell{Class: Typed, Note: colType}
		}
	}
	physicalDiff := meaningDiff
	if c.PhysicalRows != nil {
		physicalDiff = diffRows(physical, gotRows)
	}
	if physicalDiff == "" || meaningDiff == "" {
		return Cell{Class: Physical, Note: colType}
	}
	// Name the difference from the expectation the reader came closer to:
	// the one whose first difference lies deeper.
	d := physicalDiff
	if depth(meaningDiff) > depth(physicalDiff) {
		d = meaningDiff
	}
	return Cell{Class: Wrong, Note: d}
}

// depth is how deep a difference lies: the length of its path.
func depth(diff string) int {
	path, _, _ := strings.Cut(diff, ": ")
	return len(path)
}

// diffRows compares rows: the row count, then each row's members.
func diffRows(want any, got []any) string {
	w, ok := want.([]any)
	if !ok {
		return fmt.Sprintf("rows: cannot compare expected %T", want)
	}
	if len(got) != len(w) {
		return fmt.Sprintf("rows: got %d values, want %d", len(got), len(w))
	}
	for i := range w {
		if d := diffValue(fmt.Sprintf("rows[%d]", i), w[i], got[i]); d != "" {
			return d
		}
	}
	return ""
}

// diffValue compares got with want in the common JSON form and describes
// the first difference, "" when equal. The comparison is exact except for
// three leniencies the readers' JSON needs (spec/COMPAT.md): a number
// equals a decimal string of the same value (peers print 64-bit integers as
// strings); an object member that is null equals an absent one; an object
// whose members are all null equals null (a required group under a null
// parent).
func diffValue(path string, want, got any) string {
	at := path
	switch w := want.(type) {
	case nil:
		if got != nil {
			return fmt.Sprintf("%s: got %s, want null", at, short(got))
		}
		return ""
	case json.Number:
		if !numbersEqual(w, got) {
			return fmt.Sprintf("%s: got %s, want %s", at, short(got), w)
		}
		return ""
	case string, bool:
		if got != want {
			return fmt.Sprintf("%s: got %s, want %s", at, short(got), short(want))
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: got %s, want a list of %d", at, short(got), len(w))
		}
		if len(g) != len(w) {
			return fmt.Sprintf("%s: got %d values, want %d", at, len(g), len(w))
		}
		for i := range w {
			if d := diffValue(fmt.Sprintf("%s[%d]", path, i), collapse(w[i]), collapse(g[i])); d != "" {
				return d
			}
		}
		return ""
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %s, want an object", at, short(got))
		}
		w, g = collapseMembers(w), collapseMembers(g)
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			if d := diffValue(path+"."+k, w[k], g[k]); d != "" { // already collapsed
				return d
			}
		}
		return ""
	}
	return fmt.Sprintf("%s: cannot compare %T", at, want)
}

// collapseMembers collapses each member of an object, dropping those that
// end up null.
func collapseMembers(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, x := range m {
		if x = collapse(x); x != nil {
			out[k] = x
		}
	}
	return out
}

// collapse drops null members of an object and turns an object with no
// members left into null.
func collapse(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := collapseMembers(m)
	if len(out) == 0 {
		return nil
	}
	return out
}

func numbersEqual(want json.Number, got any) bool {
	var text string
	switch g := got.(type) {
	case json.Number:
		text = g.String()
	case string:
		text = g
	default:
		return false
	}
	a, ok1 := new(big.Rat).SetString(want.String())
	b, ok2 := new(big.Rat).SetString(text)
	return ok1 && ok2 && a.Cmp(b) == 0
}

func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	s := string(b)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// firstWords is an error's first line, shortened for a table cell.
func firstWords(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 90 {
		s = s[:87] + "..."
	}
	return s
}
