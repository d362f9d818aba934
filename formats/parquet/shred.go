package parquet

import (
	"fmt"

	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/data"
)

// shredder turns records into Parquet rows: one value per leaf occurrence,
// each carrying its repetition and definition level. Values collect per
// column and are concatenated at the end, because parquet-go wants a row's
// values grouped by column while a list of structs visits its columns
// interleaved. Nothing reaches the file until the whole record has
// shredded without error, which is what keeps a bad record out.
type shredder struct {
	plan *writePlan
	cols [][]pq.Value
	fast fastShred // scratch of the variant fast path (variant_shred.go)
	// metas are the variant metadata checked so far: the rows of a column
	// share a few metadata, and parsing one per row was a tenth of a
	// variant write.
	metas metaCache
	// nullTable holds, per column, its null values at small levels
	// (appendNull), built as they are first needed.
	nullTable [][]pq.Value
}

func newShredder(plan *writePlan) *shredder {
	return &shredder{plan: plan, cols: make([][]pq.Value, plan.columns), nullTable: make([][]pq.Value, plan.columns)}
}

// validate shreds rec against the plan, for its error only: records
// buffered while variant layouts are inferred are checked when they come
// and written later, through the column batch.
func (s *shredder) validate(rec *data.Record) error {
	for i := range s.cols {
		s.cols[i] = s.cols[i][:0]
	}
	if rec == nil {
		return fmt.Errorf("record is nil")
	}
	return s.record(s.plan.root, rec, 0)
}

// record shreds a present struct value whose first value per column takes
// repetition level rep.
func (s *shredder) record(n *wnode, rec *data.Record, rep int) error {
	if err := checkStruct(n, rec); err != nil {
		return err
	}
	for i, c := range n.children {
		if err := s.value(c, rec.Get(i), rep); err != nil {
			return err
		}
	}
	return nil
}

// checkStruct accepts a record whose fields match the struct's by position,
// id and type. Names and docs may differ: ids are what Iceberg resolves by.
func checkStruct(n *wnode, rec *data.Record) error {
	got := rec.Struct()
	if got == n.st || got == n.seen {
		return nil
	}
	fields := got.FieldList
	mismatch := len(fields) != len(n.st.FieldList)
	for i := 0; !mismatch && i < len(fields); i++ {
		want := n.st.FieldList[i]
		mismatch = fields[i].ID != want.ID || !fields[i].Type.Equals(want.Type)
	}
	if mismatch {
		where := "record"
		if n.path != "" {
			where = fmt.Sprintf("column %q", n.path)
		}
		return fmt.Errorf("%s: record of type %s does not match the schema's %s", where, got, n.st)
	}
	// Records of one batch usually share their struct type: remember it.
	n.seen = got
	return nil
}

func (s *shredder) value(n *wnode, v any, rep int) error {
	if v == nil {
		if n.required {
			return fmt.Errorf("column %q: null value in required field", n.path)
		}
		// A null stops one level short of this node's definition level.
		s.nulls(n.leaves, rep, n.def-1)
		return nil
	}
	switch n.kind {
	case wPrimitive:
		pv, err := n.conv(v)
		if err != nil {
			return fmt.Errorf("column %q: %w", n.path, err)
		}
		s.cols[n.col] = append(s.cols[n.col], pv.Level(rep, n.def, n.col))
	case wStruct:
		rec, ok := v.(*data.Record)
		if !ok {
			return fmt.Errorf("column %q: expected *data.Record, got %T", n.path, v)
		}
		if rec == nil {
			return s.value(n, nil, rep)
		}
		return s.record(n, rec, rep)
	case wList:
		items, ok := v.([]any)
		if !ok {
			return fmt.Errorf("column %q: expected []any, got %T", n.path, v)
		}
		if len(items) == 0 {
			s.nulls(n.leaves, rep, n.def)
			return nil
		}
		for i, item := range items {
			r := rep
			if i > 0 {
				r = n.rep
			}
			if err := s.value(n.children[0], item, r); err != nil {
				return err
			}
		}
	case wMap:
		entries, ok := v.(data.Map)
		if !ok {
			return fmt.Errorf("column %q: expected data.Map, got %T", n.path, v)
		}
		if len(entries) == 0 {
			s.nulls(n.leaves, rep, n.def)
			return nil
		}
		for i, e := range entries {
			r := rep
			if i > 0 {
				r = n.rep
			}
			if err := s.value(n.children[0], e.Key, r); err != nil {
				return err
			}
			if err := s.value(n.children[1], e.Value, r); err != nil {
				return err
			}
		}
	case wVariant:
		return s.variantValue(n, v, rep)
	case wUnknown:
		return fmt.Errorf("column %q: type unknown holds only nulls, got %T", n.path, v)
	}
	return nil
}

func (s *shredder) nulls(leaves []int, rep, def int) {
	for _, c := range leaves {
		s.appendNull(c, rep, def)
	}
}

// nullLevels bounds the levels nullTable keeps: below it in both.
const nullLevels = 8

// appendNull appends a null of column c at levels rep and def. Half of a
// shredded write's values are nulls, and parquet-go's Value.Level is too
// big to inline: a null from the table is a copy instead of a call.
func (s *shredder) appendNull(c, rep, def int) {
	if t := s.nullTable[c]; t != nil && uint(rep)|uint(def) < nullLevels {
		s.cols[c] = append(s.cols[c], t[rep*nullLevels+def])
		return
	}
	s.appendNullSlow(c, rep, def)
}

// appendNullSlow is appendNull building the table of c, or past it.
func (s *shredder) appendNullSlow(c, rep, def int) {
	if rep >= nullLevels || def >= nullLevels {
		s.cols[c] = append(s.cols[c], pq.Value{}.Level(rep, def, c))
		return
	}
	t := make([]pq.Value, nullLevels*nullLevels)
	for r := range nullLevels {
		for d := range nullLevels {
			t[r*nullLevels+d] = pq.Value{}.Level(r, d, c)
		}
	}
	s.nullTable[c] = t
	s.cols[c] = append(s.cols[c], t[rep*nullLevels+def])
}

// structOf is the struct type of a schema, shared by the records a writer
// builds itself (position deletes).
func structOf(schema *iceberg.Schema) *iceberg.StructType {
	st := schema.AsStruct()
	return &st
}
