package colmetrics

import (
	"fmt"
	"unsafe"

	pq "github.com/parquet-go/parquet-go"
)

// A writer that shreds a top-level primitive column into a batch of Parquet
// values can hand the whole batch to the collector, which then observes it
// in one tight loop per column instead of walking every record's boxed
// values. The physical values order as Iceberg's bounds do for the types
// taken here: signed INT32/INT64 for the integer-backed types, IEEE floats
// with NaN counted apart and -0.0 before +0.0, unsigned bytes for strings
// (UTF-8 byte order is code point order), binary, fixed and uuid. Decimals
// stay on the record path: a FIXED_LEN_BYTE_ARRAY decimal is two's
// complement, whose byte order is not its numeric order.

// valuesObserver is an observer that also takes a column's Parquet values.
type valuesObserver interface {
	observer
	// addValues observes the non-null values of a flat column; it fails
	// when a value cannot be one of the column's type.
	addValues(values []pq.Value) error
}

// Columnar hands the observation of the top-level primitive field id to
// ObserveValues and reports true; Add skips the field from then on. It
// reports false, and changes nothing, when the field is not a top-level
// primitive of the schema or its type is observed from records only.
// Columns whose mode keeps neither bounds nor NaN counts need no values at
// all: for them Columnar reports true and ObserveValues does nothing.
func (c *Collector) Columnar(id int) bool {
	col, ok := c.columns[id]
	if !ok {
		return false
	}
	if col.columnar {
		return true
	}
	pos := -1
	for i, f := range c.root.fields {
		if f.kind == leafNode && f.col == col {
			pos = i
		}
	}
	if pos < 0 {
		// Either nested (no node at the root) or not observed at all.
		if col.obs != nil {
			return false
		}
		if !c.topLevel(id) {
			return false
		}
		col.columnar = true
		return true
	}
	if _, ok := col.obs.(valuesObserver); !ok {
		return false
	}
	col.columnar = true
	c.root.fields = append(c.root.fields[:pos:pos], c.root.fields[pos+1:]...)
	return true
}

func (c *Collector) topLevel(id int) bool {
	for _, f := range c.topFields {
		if f == id {
			return true
		}
	}
	return false
}

// NeedsRecords reports whether Add still has fields to observe, that is,
// whether some observed field was not taken by Columnar.
func (c *Collector) NeedsRecords() bool { return len(c.root.fields) > 0 }

// ObserveValues observes a batch of values written for field id, a field
// Columnar took: one Parquet value per row, null values included (they are
// skipped), as a flat column holds them. Values of any other field are
// ignored.
func (c *Collector) ObserveValues(id int, values []pq.Value) {
	col, ok := c.columns[id]
	if !ok || !col.columnar || col.obs == nil || col.failed {
		return
	}
	if err := col.obs.(valuesObserver).addValues(values); err != nil {
		c.fail(col, err)
	}
}

func (o *orderedObserver[T]) addValues(values []pq.Value) error {
	// Date and int are INT32 columns, the other integer types INT64.
	wide := unsafe.Sizeof(o.min) == 8
	lo, hi, seen := o.min, o.max, o.seen
	for i := range values {
		v := &values[i]
		if v.IsNull() {
			continue
		}
		var x T
		if wide {
			x = T(v.Int64())
		} else {
			x = T(v.Int32())
		}
		if !seen {
			lo, hi, seen = x, x, true
			continue
		}
		lo = min(lo, x)
		hi = max(hi, x)
	}
	o.min, o.max, o.seen = lo, hi, seen
	return nil
}

func (o *boolObserver) addValues(values []pq.Value) error {
	for i := range values {
		v := &values[i]
		if v.IsNull() {
			continue
		}
		o.observe(v.Boolean())
	}
	return nil
}

func (o *floatObserver[T]) addValues(values []pq.Value) error {
	single := unsafe.Sizeof(o.min) == 4
	for i := range values {
		v := &values[i]
		if v.IsNull() {
			continue
		}
		if single {
			o.observe(T(v.Float()))
		} else {
			o.observe(T(v.Double()))
		}
	}
	return nil
}

func (o *stringObserver) addValues(values []pq.Value) error {
	for i := range values {
		v := &values[i]
		if v.IsNull() {
			continue
		}
		// string(b) in a comparison does not allocate; the bound is
		// copied only when it changes.
		b := v.ByteArray()
		switch {
		case !o.seen:
			o.min, o.max, o.seen = string(b), string(b), true
		case string(b) < o.min:
			o.min = string(b)
		case string(b) > o.max:
			o.max = string(b)
		}
	}
	return nil
}

func (o *bytesObserver) addValues(values []pq.Value) error {
	for i := range values {
		v := &values[i]
		if v.IsNull() {
			continue
		}
		o.observe(v.ByteArray())
	}
	return nil
}

func (o *uuidObserver) addValues(values []pq.Value) error {
	for i := range values {
		v := &values[i]
		if v.IsNull() {
			continue
		}
		x := v.ByteArray()
		if len(x) != len(o.min) {
			return fmt.Errorf("uuid value of %d bytes, want %d", len(x), len(o.min))
		}
		o.observe(x)
	}
	return nil
}

// Compile-time checks: every observer but the decimal one takes values.
var (
	_ valuesObserver = (*orderedObserver[int64])(nil)
	_ valuesObserver = (*boolObserver)(nil)
	_ valuesObserver = (*floatObserver[float64])(nil)
	_ valuesObserver = (*stringObserver)(nil)
	_ valuesObserver = (*bytesObserver)(nil)
	_ valuesObserver = (*uuidObserver)(nil)
)
