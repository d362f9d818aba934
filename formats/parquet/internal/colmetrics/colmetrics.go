// Package colmetrics computes the Iceberg column metrics of a Parquet data
// file, as Iceberg Java's ParquetMetrics does
// (parquet/src/main/java/org/apache/iceberg/parquet/ParquetMetrics.java):
// column sizes, value counts and null counts come from the file's footer;
// NaN counts and lower/upper bounds come from the records the writer saw,
// because the footer's statistics use Parquet's orderings and may be absent
// or truncated. Variant bounds are the exception: like Java's
// MetricsVariantVisitor they come from the footer statistics of the
// shredded typed_value columns (variant.go), which the records do not show.
//
// Leaves inside a list or a map get no value, null or NaN counts and no
// bounds, only their column size: ParquetMetrics.MetricsVisitor's list and
// map return no field metrics ("repeated fields are not currently
// supported"), and columnSizes counts every leaf with a field id
// (TestMetrics.testMetricsForListAndMapElements asserts the counts and
// bounds of such leaves are null).
package colmetrics

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// Collector gathers the metrics of one data file. It is not safe for
// concurrent use.
type Collector struct {
	// columns are the schema's primitive fields, by field id.
	columns map[int]*column
	// root is the schema's struct, holding the fields Add has to look at.
	root *node
	// topFields are the ids of the schema's top-level fields.
	topFields []int
	// variants are the variant fields whose counts are kept, by field id:
	// the value and null counts of a variant are those of its metadata
	// leaf, which has no field id of its own (footerCounts); truncate and
	// full modes add the bounds of its shredded fields (variant.go).
	variants map[int]registry.MetricsMode
	err      error
}

// column is one primitive field of the schema.
type column struct {
	id   int
	name string
	typ  iceberg.PrimitiveType
	mode registry.MetricsMode
	// obs watches the values; nil when neither NaN counts nor bounds are kept.
	obs observer
	// nanCounted is true for float and double columns whose mode is not none.
	nanCounted bool
	// failed is set when a value did not match the column's type: the NaN
	// count and the bounds would then be wrong, so they are left out.
	failed bool
	// columnar is set by Columnar: the values come from ObserveValues.
	columnar bool
	// nested is set below a list or a map: only the column size is kept.
	nested bool
}

type nodeKind uint8

const (
	leafNode nodeKind = iota
	structNode
	listNode
	mapNode
)

// node mirrors the part of the schema that Add walks: only subtrees with at
// least one observed column, so lists and maps of unobserved types are skipped.
type node struct {
	kind nodeKind
	// pos is the field's position in its parent struct.
	pos int
	col *column // leafNode
	// fields are the observed fields of a struct; numFields is the struct's
	// total field count, used to check the record's shape.
	fields    []*node
	numFields int
	// elem, key and value are nil when that side has nothing to observe.
	elem, key, value *node
	// under lists every column below, to drop their results when a value
	// of the wrong Go type hides them.
	under []*column
}

// NewCollector prepares metrics for rows of schema under cfg. Errors for
// invalid schema/config.
func NewCollector(schema *iceberg.Schema, cfg registry.MetricsConfig) (*Collector, error) {
	if schema == nil {
		return nil, errors.New("colmetrics: schema is nil")
	}
	if err := validMode(cfg.Default); err != nil {
		return nil, fmt.Errorf("colmetrics: default metrics mode: %w", err)
	}
	names, err := iceberg.IndexNameByID(schema)
	if err != nil {
		return nil, fmt.Errorf("colmetrics: schema: %w", err)
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Columns)) {
		if err := validMode(cfg.Columns[name]); err != nil {
			// Columns the schema lacks are allowed, as in Iceberg Java: a
			// table's config also reaches delete files with other schemas.
			if f, ok := schema.FindFieldByName(name); ok {
				return nil, fmt.Errorf("colmetrics: metrics mode of field %d (%s): %w", f.ID, name, err)
			}
			return nil, fmt.Errorf("colmetrics: metrics mode of column %q: %w", name, err)
		}
	}

	c := &Collector{columns: map[int]*column{}, variants: map[int]registry.MetricsMode{}}
	b := builder{c: c, names: names, cfg: cfg, seen: map[int]bool{}}
	st := schema.AsStruct()
	for _, f := range st.FieldList {
		c.topFields = append(c.topFields, f.ID)
	}
	if c.root, err = b.structNode(&st, false); err != nil {
		return nil, err
	}
	if c.root == nil {
		c.root = &node{kind: structNode, numFields: len(st.FieldList)}
	}
	return c, nil
}

func validMode(m registry.MetricsMode) error {
	switch m.Kind {
	case registry.MetricsNone, registry.MetricsCounts, registry.MetricsFull:
		return nil
	case registry.MetricsTruncate:
		if m.Length <= 0 {
			return fmt.Errorf("truncate length must be positive, got %d", m.Length)
		}
		return nil
	}
	return fmt.Errorf("unknown metrics mode kind %d", m.Kind)
}

type builder struct {
	c     *Collector
	names map[int]string
	cfg   registry.MetricsConfig
	seen  map[int]bool
}

// field builds the node for field id of type t; nested is true below a list
// or map, where Iceberg keeps no counts and no bounds. It returns nil when
// nothing below needs the record values.
func (b *builder) field(id int, t iceberg.Type, nested bool) (*node, error) {
	if b.seen[id] {
		return nil, fmt.Errorf("colmetrics: schema: field id %d is used more than once", id)
	}
	b.seen[id] = true

	switch t := t.(type) {
	case *iceberg.StructType:
		return b.structNode(t, nested)
	case *iceberg.ListType:
		elem, err := b.field(t.ElementID, t.Element, true)
		if err != nil || elem == nil {
			return nil, err
		}
		return &node{kind: listNode, elem: elem, under: elem.under}, nil
	case *iceberg.MapType:
		key, err := b.field(t.KeyID, t.KeyType, true)
		if err != nil {
			return nil, err
		}
		value, err := b.field(t.ValueID, t.ValueType, true)
		if err != nil {
			return nil, err
		}
		if key == nil && value == nil {
			return nil, nil
		}
		n := &node{kind: mapNode, key: key, value: value}
		if key != nil {
			n.under = append(n.under, key.under...)
		}
		if value != nil {
			n.under = append(n.under, value.under...)
		}
		return n, nil
	case iceberg.VariantType:
		// A variant is a Parquet group whose leaves carry no Iceberg field
		// id: footerCounts gives it the counts of its metadata leaf, and
		// variantBounds the bounds of its shredded fields. Below a list or
		// a map it gets nothing, like any other field there.
		if name, ok := b.names[id]; ok && !nested {
			if mode := b.cfg.ColumnMode(name); mode.Kind != registry.MetricsNone {
				b.c.variants[id] = mode
			}
		}
		return nil, nil
	case iceberg.UnknownType:
		// unknown is never stored.
		return nil, nil
	case iceberg.PrimitiveType:
		return b.primitive(id, t, nested)
	}
	return nil, fmt.Errorf("colmetrics: field %d: unsupported type %s", id, t)
}

func (b *builder) structNode(t *iceberg.StructType, nested bool) (*node, error) {
	n := &node{kind: structNode, numFields: len(t.FieldList)}
	for i, f := range t.FieldList {
		child, err := b.field(f.ID, f.Type, nested)
		if err != nil {
			return nil, err
		}
		if child != nil {
			child.pos = i
			n.fields = append(n.fields, child)
			n.under = append(n.under, child.under...)
		}
	}
	if len(n.fields) == 0 {
		return nil, nil
	}
	return n, nil
}

func (b *builder) primitive(id int, t iceberg.PrimitiveType, nested bool) (*node, error) {
	name, ok := b.names[id]
	if !ok {
		return nil, fmt.Errorf("colmetrics: schema: field %d has no column name", id)
	}
	col := &column{id: id, name: name, typ: t, mode: b.cfg.ColumnMode(name), nested: nested}
	b.c.columns[id] = col
	if col.mode.Kind == registry.MetricsNone || nested {
		// Below a list or map Java's MetricsVisitor drops the field's
		// metrics, NaN count included (MetricsUtil.createNanValueCounts
		// skips fields inMapOrList too): nothing to observe.
		return nil, nil
	}
	bounds := col.mode.Kind == registry.MetricsTruncate || col.mode.Kind == registry.MetricsFull
	obs, nanCounted, err := newObserver(t, bounds)
	if err != nil {
		return nil, fmt.Errorf("colmetrics: field %d (%s): %w", id, name, err)
	}
	if obs == nil {
		return nil, nil
	}
	col.obs, col.nanCounted = obs, nanCounted
	return &node{kind: leafNode, col: col, under: []*column{col}}, nil
}

// Add observes one written record (already validated against the schema).
// A value whose Go type does not match the schema is not an error here, since
// the writer already accepted the row; the affected columns lose their NaN
// count and bounds, and Err reports the first such value.
func (c *Collector) Add(rec *data.Record) {
	if rec == nil {
		if c.err == nil {
			c.err = errors.New("colmetrics: Add got a nil record")
		}
		c.failNode(c.root, errors.New("nil record"))
		return
	}
	c.addStruct(c.root, rec)
}

// Err returns the first value Add could not use, or the first bound Metrics
// left out as invalid, naming its field id, or the footer schema Metrics
// could not walk, naming the element; nil when there was none.
func (c *Collector) Err() error { return c.err }

func (c *Collector) addStruct(n *node, rec *data.Record) {
	if rec.Len() != n.numFields {
		c.failNode(n, fmt.Errorf("record has %d values, its schema struct %d fields", rec.Len(), n.numFields))
		return
	}
	for _, f := range n.fields {
		if v := rec.Get(f.pos); v != nil {
			c.addValue(f, v)
		}
	}
}

func (c *Collector) addValue(n *node, v any) {
	switch n.kind {
	case leafNode:
		col := n.col
		if col.failed {
			return
		}
		if err := col.obs.add(v); err != nil {
			c.fail(col, err)
		}
	case structNode:
		rec, ok := v.(*data.Record)
		if !ok {
			c.failNode(n, wrongType(v, "*data.Record"))
			return
		}
		if rec != nil {
			c.addStruct(n, rec)
		}
	case listNode:
		list, ok := v.([]any)
		if !ok {
			c.failNode(n, wrongType(v, "[]any"))
			return
		}
		for _, e := range list {
			if e != nil {
				c.addValue(n.elem, e)
			}
		}
	case mapNode:
		m, ok := v.(data.Map)
		if !ok {
			c.failNode(n, wrongType(v, "data.Map"))
			return
		}
		for _, e := range m {
			if n.key != nil && e.Key != nil {
				c.addValue(n.key, e.Key)
			}
			if n.value != nil && e.Value != nil {
				c.addValue(n.value, e.Value)
			}
		}
	}
}

func (c *Collector) fail(col *column, err error) {
	col.failed = true
	if c.err == nil {
		c.err = fmt.Errorf("colmetrics: field %d (%s): %w", col.id, col.name, err)
	}
}

// failNode fails every column below n, whose values a bad value hid.
func (c *Collector) failNode(n *node, err error) {
	for _, col := range n.under {
		c.fail(col, err)
	}
}

// Metrics returns the DataFile metrics of the closed file whose footer is given
// (format = github.com/parquet-go/parquet-go/format, parquet-go v0.32.0).
//
// The footer's sizes, counts and bounds are found by the schema's paths; a
// schema that is not one well-formed tree (never one the lab wrote) gives
// none of them, and Err says why.
func (c *Collector) Metrics(footer *format.FileMetaData) registry.Metrics {
	m, _ := c.metrics(footer)
	return m
}

// metrics is Metrics, with the footer's schema tree for FooterMetrics: nil
// when there is no footer or its schema is no tree.
func (c *Collector) metrics(footer *format.FileMetaData) (registry.Metrics, *footerSchema) {
	m := registry.Metrics{
		ColumnSizes:     map[int]int64{},
		ValueCounts:     map[int]int64{},
		NullValueCounts: map[int]int64{},
		NaNValueCounts:  map[int]int64{},
		LowerBounds:     map[int][]byte{},
		UpperBounds:     map[int][]byte{},
	}
	var schema *footerSchema
	if footer != nil {
		m.RecordCount = footer.NumRows
		var err error
		if schema, err = newFooterSchema(footer.Schema); err != nil {
			if c.err == nil {
				c.err = err
			}
		} else {
			c.footerCounts(footer, schema, &m)
			c.variantBounds(footer, schema, &m)
		}
	}
	// In id order, so that Err names the same column on every run.
	for _, id := range slices.Sorted(maps.Keys(c.columns)) {
		col := c.columns[id]
		if col.obs == nil || col.failed {
			continue
		}
		if col.nanCounted {
			m.NaNValueCounts[col.id] = col.obs.nans()
		}
		lower, upper, ok := col.obs.bounds()
		if !ok {
			continue
		}
		if err := checkBounds(col, lower, upper); err != nil {
			// Metrics has no error result; Err reports why the bounds are missing.
			if c.err == nil {
				c.err = fmt.Errorf("colmetrics: field %d (%s): %w", col.id, col.name, err)
			}
			continue
		}
		lower, upper, hasUpper := truncateBounds(col.typ, col.mode, lower, upper)
		m.LowerBounds[col.id] = lower
		if hasUpper {
			m.UpperBounds[col.id] = upper
		}
	}
	return m, schema
}

// footerCounts sums the column chunks of every row group into sizes, value
// counts and null counts, for every leaf the schema knows by field id.
func (c *Collector) footerCounts(footer *format.FileMetaData, schema *footerSchema, m *registry.Metrics) {
	ids := schema.leafFieldIDs()
	var groups map[string]int
	if len(c.variants) > 0 {
		groups = schema.groupFieldIDs()
	}
	for _, rg := range footer.RowGroups {
		for i := range rg.Columns {
			md := &rg.Columns[i].MetaData
			if path := md.PathInSchema; len(path) > 1 && path[len(path)-1] == "metadata" {
				// A variant's metadata is required inside the variant's
				// group: it has one value slot per variant slot and a null
				// exactly where the variant is null (VariantEncoding.md).
				// A non-null variant holding a Variant null is no null here.
				if id, ok := groups[pathKey(path[:len(path)-1])]; ok && c.variants[id].Kind != registry.MetricsNone {
					m.ValueCounts[id] += md.NumValues
					m.NullValueCounts[id] += md.Statistics.NullCount
					continue
				}
			}
			id, ok := ids[pathKey(md.PathInSchema)]
			if !ok {
				continue
			}
			col, ok := c.columns[id]
			if !ok || col.mode.Kind == registry.MetricsNone {
				continue
			}
			m.ColumnSizes[id] += md.TotalCompressedSize
			if col.nested {
				// ParquetMetrics.columnSizes keeps the size of a leaf in a
				// list or map; its MetricsVisitor drops the counts.
				continue
			}
			m.ValueCounts[id] += md.NumValues
			// parquet-go's thrift model has no presence bit for null_count;
			// its writer always writes it (writezero), so it is taken as set.
			m.NullValueCounts[id] += md.Statistics.NullCount
		}
	}
}
