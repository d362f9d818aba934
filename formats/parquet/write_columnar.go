package parquet

import (
	"fmt"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/internal/colmetrics"
)

// The write path is columnar: a record's values go straight into per-column
// batches of Parquet values, and a full batch reaches parquet-go column by
// column through its ColumnWriters. Building a parquet.Row per record and
// handing rows to WriteRows would copy every value three more times (row,
// batch of rows, parquet-go's own per-column split) for the same result.
//
// Top-level primitive fields, the bulk of most tables, take a fast path: a
// flat column holds exactly one value per row at repetition level 0, so a
// record's value is converted with a type switch and appended in place, and
// its metrics are observed per batch in one loop (colmetrics.ObserveValues)
// instead of per record. Every other field goes through the shredder and
// the per-record metrics walk; both paths write the same bytes.

// flatKind selects the conversion of a flat column's values.
type flatKind uint8

const (
	flatConverter flatKind = iota // any type: the column's converter
	flatBool
	flatInt32
	flatInt64
	flatFloat32
	flatFloat64
	flatDate
	flatTime
	flatTimestamp
	flatTimestampNano
	flatString
)

// flatKindOf is the fast conversion for an Iceberg primitive, when it has one.
func flatKindOf(t iceberg.Type) flatKind {
	switch t.(type) {
	case iceberg.BooleanType:
		return flatBool
	case iceberg.Int32Type:
		return flatInt32
	case iceberg.Int64Type:
		return flatInt64
	case iceberg.Float32Type:
		return flatFloat32
	case iceberg.Float64Type:
		return flatFloat64
	case iceberg.DateType:
		return flatDate
	case iceberg.TimeType:
		return flatTime
	case iceberg.TimestampType, iceberg.TimestampTzType:
		return flatTimestamp
	case iceberg.TimestampNsType, iceberg.TimestampTzNsType:
		return flatTimestampNano
	case iceberg.StringType:
		return flatString
	}
	return flatConverter
}

// batchField is how one top-level field of the schema reaches the batch.
type batchField struct {
	node *wnode
	// flat is set for a top-level primitive: its single leaf column gets
	// one value per row, appended by appendFlat.
	flat bool
	kind flatKind
	// observed is set when the collector takes the column's values from
	// the batch (colmetrics.Collector.Columnar).
	observed bool
	id       int
}

// columnBatch holds the rows waiting for parquet-go, column by column.
type columnBatch struct {
	root   *wnode
	fields []batchField
	// shredded are the leaf columns filled through the shredder.
	shredded []int
	// values are the waiting values of each leaf column.
	values [][]pq.Value
	// rowEnds are, for each shredded column, where each waiting row's
	// values end in values; nil for flat columns (row i is value i).
	rowEnds [][]int
	rows    int
	// bytes roughly sizes the waiting values, to honour small row groups.
	bytes int64
	// vec stages the VECTOR fields of the record being added; the
	// appender commits them once the record is accepted.
	vec *vectorWriter
}

// newColumnBatch prepares the batch for plan. With flat unset every field
// goes through the shredder (the general path the tests compare the fast
// one with). Flat columns whose metrics the collector can take from the
// batch are handed to it.
func newColumnBatch(plan *writePlan, collector *colmetrics.Collector, flat bool) *columnBatch {
	b := &columnBatch{
		root:    plan.root,
		values:  make([][]pq.Value, plan.columns),
		rowEnds: make([][]int, plan.columns),
	}
	for i, n := range plan.root.children {
		f := batchField{node: n, id: plan.root.st.FieldList[i].ID}
		if flat && n.kind == wPrimitive {
			f.flat, f.kind = true, flatKindOf(n.typ)
			f.observed = collector.Columnar(f.id)
		} else {
			b.shredded = append(b.shredded, n.leaves...)
		}
		b.fields = append(b.fields, f)
	}
	for _, c := range b.shredded {
		b.rowEnds[c] = []int{}
	}
	return b
}

// add shreds rec into the batch after check accepts it. A record that
// fails either leaves the batch as it was: the file stays writable.
func (b *columnBatch) add(s *shredder, rec *data.Record, check func(*data.Record) error) error {
	if rec == nil {
		return fmt.Errorf("record is nil")
	}
	if err := checkStruct(b.root, rec); err != nil {
		return err
	}
	// The shredder appends to the batch's own columns (no copy per value);
	// a refused record leaves them at their old lengths.
	for _, c := range b.shredded {
		s.cols[c] = b.values[c]
	}
	defer func() {
		for _, c := range b.shredded {
			s.cols[c] = nil
		}
	}()
	bytesBefore := b.bytes
	for i := range b.fields {
		f := &b.fields[i]
		var err error
		switch {
		case f.node.kind == wVector:
			err = b.stageVector(i, rec.Get(i))
		case f.flat:
			err = b.appendFlat(f, rec, i)
		default:
			err = s.value(f.node, rec.Get(i), 0)
		}
		if err != nil {
			b.rollback(bytesBefore)
			return err
		}
	}
	if err := check(rec); err != nil {
		b.rollback(bytesBefore)
		return err
	}
	for _, c := range b.shredded {
		added := s.cols[c][len(b.values[c]):]
		b.values[c] = s.cols[c]
		b.rowEnds[c] = append(b.rowEnds[c], len(b.values[c]))
		for i := range added {
			v := &added[i]
			b.bytes += 8
			if k := v.Kind(); !v.IsNull() && (k == pq.ByteArray || k == pq.FixedLenByteArray) {
				b.bytes += int64(len(v.ByteArray()))
			}
		}
	}
	b.rows++
	return nil
}

// rollback drops the flat values of a record that was refused, and their
// bytes.
func (b *columnBatch) rollback(bytes int64) {
	b.bytes = bytes
	for i := range b.fields {
		if f := &b.fields[i]; f.flat {
			b.values[f.node.col] = b.values[f.node.col][:b.rows]
		}
	}
}

// appendFlat appends the top-level primitive value at pos of rec,
// converted as the column's converter would, with the levels the shredder
// would give it. The common types convert inline (flatValue); a value of
// another Go type goes to the column's converter, which converts it or
// names the error. The value is built in its slot of the batch: returning
// a 24-byte parquet.Value and copying it in cost a third of the call.
func (b *columnBatch) appendFlat(f *batchField, rec *data.Record, pos int) error {
	n := f.node
	values := append(b.values[n.col], pq.Value{})
	slot := &values[len(values)-1]
	size, ok := flatValue(f.kind, rec, pos, slot)
	if !ok {
		switch v := rec.Get(pos); {
		case v == nil && n.required:
			return fmt.Errorf("column %q: null value in required field", n.path)
		case v == nil:
			slot.SetDefinitionLevel(n.def - 1)
			slot.SetColumnIndex(n.col)
			b.values[n.col] = values
			b.bytes += 8
			return nil
		default:
			pv, err := n.conv(v)
			if err != nil {
				return fmt.Errorf("column %q: %w", n.path, err)
			}
			*slot = pv
			if k := pv.Kind(); k == pq.ByteArray || k == pq.FixedLenByteArray {
				size = len(pv.ByteArray())
			}
		}
	}
	// The repetition level of a flat column's values stays 0.
	slot.SetDefinitionLevel(n.def)
	slot.SetColumnIndex(n.col)
	b.values[n.col] = values
	b.bytes += 8 + int64(size)
	return nil
}

// flatValue stores in slot the value at pos of rec when it has the Go type
// the column kind expects, and returns the bytes it references. It reads
// with the record's typed getters, so that a value a typed setter stored is
// never boxed. ok is false for null, for another Go type and for a string
// that is not UTF-8: the column's converter decides those.
func flatValue(kind flatKind, rec *data.Record, pos int, slot *pq.Value) (size int, ok bool) {
	switch kind {
	case flatInt64:
		if x, ok := rec.GetInt64(pos); ok {
			*slot = pq.Int64Value(x)
			return 0, true
		}
	case flatString:
		if x, ok := rec.GetString(pos); ok && utf8.ValidString(x) {
			// As convString: strings are immutable and parquet-go copies
			// values into its page buffers, so the bytes need no copy.
			*slot = pq.ByteArrayValue(unsafe.Slice(unsafe.StringData(x), len(x)))
			return len(x), true
		}
	case flatInt32:
		if x, ok := rec.GetInt32(pos); ok {
			*slot = pq.Int32Value(x)
			return 0, true
		}
	case flatFloat64:
		if x, ok := rec.GetFloat64(pos); ok {
			*slot = pq.DoubleValue(x)
			return 0, true
		}
	case flatFloat32:
		if x, ok := rec.GetFloat32(pos); ok {
			*slot = pq.FloatValue(x)
			return 0, true
		}
	case flatBool:
		if x, ok := rec.GetBool(pos); ok {
			*slot = pq.BooleanValue(x)
			return 0, true
		}
	case flatDate:
		if x, ok := rec.Get(pos).(iceberg.Date); ok {
			*slot = pq.Int32Value(int32(x))
			return 0, true
		}
	case flatTime:
		if x, ok := rec.Get(pos).(iceberg.Time); ok {
			*slot = pq.Int64Value(int64(x))
			return 0, true
		}
	case flatTimestamp:
		if x, ok := rec.Get(pos).(iceberg.Timestamp); ok {
			*slot = pq.Int64Value(int64(x))
			return 0, true
		}
	case flatTimestampNano:
		if x, ok := rec.Get(pos).(iceberg.TimestampNano); ok {
			*slot = pq.Int64Value(int64(x))
			return 0, true
		}
	}
	return 0, false
}

// observe hands the waiting values of the columns the collector took.
func (b *columnBatch) observe(collector *colmetrics.Collector) {
	for i := range b.fields {
		if f := &b.fields[i]; f.observed {
			collector.ObserveValues(f.id, b.values[f.node.col])
		}
	}
}

// rowsPerCall is how many rows go to a column writer per call, as in
// parquet-go's WriteRows: a column flushes a page only between calls, so
// this bounds how far a page overshoots its size, and it keeps the pages
// where the row API would have cut them.
const rowsPerCall = 64

// writeTo writes the waiting rows to the column writers of the current row
// group, in slices of rowsPerCall rows, every column in turn.
func (b *columnBatch) writeTo(columns []*pq.ColumnWriter) error {
	if len(columns) != len(b.values) {
		return fmt.Errorf("writer has %d columns, the batch %d", len(columns), len(b.values))
	}
	for start := 0; start < b.rows; start += rowsPerCall {
		end := min(start+rowsPerCall, b.rows)
		for c, values := range b.values {
			lo, hi := start, end
			if ends := b.rowEnds[c]; ends != nil {
				lo, hi = 0, ends[end-1]
				if start > 0 {
					lo = ends[start-1]
				}
			}
			if _, err := columns[c].WriteRowValues(values[lo:hi]); err != nil {
				return err
			}
		}
	}
	return nil
}

// reset empties the batch, keeping its memory.
func (b *columnBatch) reset() {
	for c := range b.values {
		b.values[c] = b.values[c][:0]
		if b.rowEnds[c] != nil {
			b.rowEnds[c] = b.rowEnds[c][:0]
		}
	}
	b.rows, b.bytes = 0, 0
}

// stageVector converts the VECTOR field at pos for the page writer.
func (b *columnBatch) stageVector(pos int, v any) error {
	if b.vec == nil {
		return fmt.Errorf("column at position %d is a VECTOR column without a writer", pos)
	}
	return b.vec.stage(pos, v)
}
