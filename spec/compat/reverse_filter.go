package compat

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// OpBuilderFiltered is the read builder with filters the record reader
// pushes into row groups and pages (the page index the writer wrote, and
// for a variant column the shredded typed_value of $.user.id): every row
// it returns must be the file's row at its _pos, and no matching row may
// be left out.
const OpBuilderFiltered Op = "read builder (filtered)"

// filterID is the column the filtered read filters on: the generators'
// row number.
const filterID = "id"

// caseRowIDs are the cases' ids, or ok false when a row has none.
func caseRowIDs(c *WriterCase) (ids []int64, ok bool) {
	for _, row := range c.Rows {
		n, isNum := row[filterID].(json.Number)
		if !isNum {
			return nil, false
		}
		v, err := n.Int64()
		if err != nil {
			return nil, false
		}
		ids = append(ids, v)
	}
	return ids, true
}

// userID is $.user.id of a variant row value as lab read prints it.
func userID(v any) (int64, bool) {
	obj, _ := v.(map[string]any)
	user, _ := obj["user"].(map[string]any)
	n, ok := user["id"].(json.Number)
	if !ok {
		return 0, false
	}
	x, err := n.Int64()
	return x, err == nil
}

// filteredBuilderCell reads c through the read builder with the filters
// and checks what it returns against the generator's rows.
func filteredBuilderCell(c *WriterCase) (cell Cell) {
	defer func() {
		if p := recover(); p != nil {
			cell = Cell{Class: Crash, Note: fmt.Sprint("panic: ", p)}
		}
	}()
	ids, ok := caseRowIDs(c)
	if !ok {
		return Cell{Class: Error, Note: "the case's rows have no integer id"}
	}
	n := int64(len(ids))
	if n == 0 {
		return Cell{Class: Error, Note: "the case has no rows"}
	}
	type filter struct {
		expr  iceberg.BooleanExpression
		match func(i int) bool
	}
	// The smallest 5% of the ids and the largest 10%, whatever the
	// generator's ids are.
	sorted := slices.Sorted(slices.Values(ids))
	lo, hi := sorted[n/20], sorted[n-n/10-1]
	filters := []filter{{
		iceberg.NewOr(iceberg.LessThan(iceberg.Reference(filterID), lo), iceberg.GreaterThan(iceberg.Reference(filterID), hi)),
		func(i int) bool { return ids[i] < lo || ids[i] > hi },
	}}
	if c.Variant != "" {
		filters = append(filters, filter{
			iceberg.GreaterThanEqual(iceberg.Extract(iceberg.Reference(c.Variant), "$.user.id", iceberg.PrimitiveTypes.Int64), n-n/10),
			func(i int) bool { x, ok := userID(c.Rows[i][c.Variant]); return ok && x >= n-n/10 },
		})
	}
	var notes []string
	for _, f := range filters {
		b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, registry.LocalInput(c.Path))
		if err != nil {
			return Cell{Class: Error, Note: err.Error()}
		}
		fs, err := b.FileSchema()
		if err != nil {
			return Cell{Class: Error, Note: err.Error()}
		}
		proj := iceberg.NewSchema(0, append(slices.Clone(fs.Fields()),
			iceberg.NestedField{ID: registry.RowPositionFieldID, Name: "_pos", Type: iceberg.PrimitiveTypes.Int64, Required: true})...)
		r, err := b.Project(proj).Filter(f.expr).Build()
		if err != nil {
			return Cell{Class: Error, Note: err.Error()}
		}
		seen := map[int64]bool{}
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				r.Close()
				return Cell{Class: Error, Note: err.Error()}
			}
			pos, _ := rec.Get(len(c.Columns)).(int64)
			if pos < 0 || pos >= n || seen[pos] {
				r.Close()
				return Cell{Class: Wrong, Note: fmt.Sprintf("filter %s: a row at _pos %v of %d rows, or twice", f.expr, rec.Get(len(c.Columns)), n)}
			}
			seen[pos] = true
			want := c.Rows[pos]
			for j, col := range c.Columns {
				if isNull(rec.Get(j)) != (want[col] == nil) {
					r.Close()
					return Cell{Class: Wrong, Note: fmt.Sprintf("filter %s: row at _pos %d: column %q null is %v, want %v", f.expr, pos, col, isNull(rec.Get(j)), want[col] == nil)}
				}
				if col == filterID && fmt.Sprint(rec.Get(j)) != fmt.Sprint(ids[pos]) {
					r.Close()
					return Cell{Class: Wrong, Note: fmt.Sprintf("filter %s: row at _pos %d has id %v, want %d", f.expr, pos, rec.Get(j), ids[pos])}
				}
			}
		}
		r.Close()
		for i := range ids {
			if f.match(i) && !seen[int64(i)] {
				return Cell{Class: Wrong, Note: fmt.Sprintf("filter %s: matching row %d was pruned", f.expr, i)}
			}
		}
		notes = append(notes, fmt.Sprintf("%s: %d of %d rows read", f.expr, len(seen), n))
	}
	return Cell{Class: OK, Note: fmt.Sprint(notes)}
}
