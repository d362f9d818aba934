// Package jsonrow converts rows between JSON (JSON Lines, and CSV cells)
// and data.Record, for a schemaspec.Spec. One row is one JSON object keyed
// by column name. Values follow Iceberg's JSON single-value serialization
// (spec.md, Appendix D) with these choices where a row needs more:
//
//	boolean            true / false
//	int, long          a JSON number without fraction or exponent, range-checked
//	float, double      a JSON number, range-checked; NaN, Infinity and
//	                   -Infinity as the strings "NaN", "Infinity", "-Infinity"
//	decimal(P,S)       a string, "14.20": exactly S digits after the point on
//	                   output; on input at most S (fewer are padded, more are
//	                   an error, never rounded) and at most P digits in all; a
//	                   JSON number is accepted too, read from its digits
//	date               "2017-11-16"
//	time               "22:31:08.123456" (input: 0 to 6 fraction digits)
//	timestamp          "2017-11-16T22:31:08.123456", no zone
//	timestamptz        "2017-11-16T22:31:08.123456+00:00" (input: any offset
//	                   or Z, converted to UTC)
//	timestamp_ns(tz)   as above with 9 fraction digits
//	string             a JSON string (valid UTF-8)
//	uuid               "f79c3e09-677c-4bbd-a479-3f349cb785e7" (lower case)
//	fixed(L), binary   a hex string, "000102ff" (lower case on output)
//	struct             a JSON object keyed by field name (Appendix D keys by
//	                   field id; rows are written by people, so by name)
//	list               a JSON array
//	map                a JSON object when the key type is string, in entry
//	                   order; otherwise Appendix D's {"keys": [...],
//	                   "values": [...]}
//	variant            any JSON value, encoded with arrow-go's variant
//	                   package; JSON null is a SQL NULL, not a variant null;
//	                   output as appendVariant describes
//	VECTOR             a JSON array of exactly dim numbers of the element
//	                   type (floats may use the non-finite strings)
//	FILE               an object with the FILE children: {"uri", "offset",
//	                   "size", "content_type", "checksum", "inline"}, inline
//	                   in hex; the value must pass the FILE spec's rules
//
// A missing key and null are both null. Output lists every field, in schema
// order, with null for nulls, so writing what was read gives the same rows.
package jsonrow

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/schemaspec"
	"github.com/coltype-lab/lab/types/file"
)

// ColumnError is a value that does not fit its column. Column is the path
// from the top-level column: "address.zip", "tags[2]", "props[\"k\"]".
type ColumnError struct {
	Column string
	Err    error
}

func (e *ColumnError) Error() string { return fmt.Sprintf("column %q: %v", e.Column, e.Err) }
func (e *ColumnError) Unwrap() error { return e.Err }

// Codec converts the rows of one Spec. It is not safe for concurrent use.
type Codec struct {
	spec    *schemaspec.Spec
	st      *iceberg.StructType
	columns []column
	index   map[string]int
	// CheckFile, when set, is called with every non-null FILE value that
	// passes the spec's rules, to apply a further policy (a resolver's
	// schemes and roots). Its error is reported against the column.
	CheckFile func(column string, v *file.Value) error
}

// column is how one top-level column converts.
type column struct {
	field  iceberg.NestedField
	vector *schemaspec.Vector
	file   *file.Layout
}

// New returns a codec for spec.
func New(spec *schemaspec.Spec) (*Codec, error) {
	st := spec.Schema.AsStruct()
	c := &Codec{spec: spec, st: &st, index: map[string]int{}}
	for i, f := range st.FieldList {
		col := column{field: f}
		if v, ok := spec.Vector(f.Name); ok {
			col.vector = &v
		}
		if spec.IsFile(f.Name) {
			fst, _ := f.Type.(*iceberg.StructType)
			layout, err := file.ParseStruct(fst)
			if err != nil {
				return nil, &ColumnError{f.Name, err}
			}
			col.file = layout
		}
		c.columns = append(c.columns, col)
		c.index[f.Name] = i
	}
	return c, nil
}

// Spec is the codec's schema declaration.
func (c *Codec) Spec() *schemaspec.Spec { return c.spec }

// DecodeJSON converts one JSON object into a record.
func (c *Codec) DecodeJSON(line []byte) (*data.Record, error) {
	n, err := parseJSON(line)
	if err != nil {
		return nil, err
	}
	if n.kind != kObject {
		return nil, fmt.Errorf("a row is a JSON object, got %s", n.kind)
	}
	rec := data.NewStructRecord(c.st)
	seen := make([]bool, len(c.columns))
	for i, key := range n.keys {
		pos, ok := c.index[key]
		if !ok {
			return nil, fmt.Errorf("no column %q in the schema (columns: %s)", key, c.names())
		}
		if seen[pos] {
			return nil, fmt.Errorf("column %q appears twice", key)
		}
		seen[pos] = true
		v, err := c.decodeColumn(pos, n.elems[i])
		if err != nil {
			return nil, err
		}
		rec.Set(pos, v)
	}
	return rec, c.checkRequired(rec)
}

func (c *Codec) names() string {
	names := make([]string, len(c.columns))
	for i, col := range c.columns {
		names[i] = col.field.Name
	}
	return strings.Join(names, ", ")
}

func (c *Codec) decodeColumn(pos int, n *node) (any, error) {
	col := &c.columns[pos]
	name := col.field.Name
	if n.kind == kNull {
		return nil, nil
	}
	var (
		v   any
		err error
	)
	if col.vector != nil {
		v, err = decodeVector(*col.vector, n)
	} else {
		v, err = decodeValue(col.field.Type, n, name)
	}
	if err != nil {
		var ce *ColumnError
		if errors.As(err, &ce) {
			return nil, err
		}
		return nil, &ColumnError{name, err}
	}
	if col.file != nil {
		if err := c.checkFile(col, v.(*data.Record)); err != nil {
			return nil, &ColumnError{name, err}
		}
	}
	return v, nil
}

// checkFile applies the FILE spec's validation rules (types/file), and then
// the caller's policy. The spec lets a writer store an invalid value as null;
// the lab refuses it instead, as formats/parquet does, so no data is lost.
func (c *Codec) checkFile(col *column, r *data.Record) error {
	v, err := col.file.Decode(r)
	if err != nil {
		return err
	}
	if err := v.Validate(); err != nil {
		return err
	}
	if c.CheckFile != nil {
		return c.CheckFile(col.field.Name, v)
	}
	return nil
}

// checkRequired refuses a null in a required field, element or value.
func (c *Codec) checkRequired(rec *data.Record) error {
	return checkStruct(c.st, rec, "")
}

func checkStruct(st *iceberg.StructType, rec *data.Record, prefix string) error {
	for i, f := range st.FieldList {
		path := prefix + f.Name
		v := rec.Get(i)
		if v == nil {
			if f.Required {
				return &ColumnError{path, errors.New("required, but null or missing")}
			}
			continue
		}
		if err := checkNested(f.Type, v, path); err != nil {
			return err
		}
	}
	return nil
}

func checkNested(t iceberg.Type, v any, path string) error {
	switch t := t.(type) {
	case *iceberg.StructType:
		return checkStruct(t, v.(*data.Record), path+".")
	case *iceberg.ListType:
		for i, e := range v.([]any) {
			p := fmt.Sprintf("%s[%d]", path, i)
			if e == nil {
				if t.ElementRequired {
					return &ColumnError{p, errors.New("list elements are required, but this one is null")}
				}
				continue
			}
			if err := checkNested(t.Element, e, p); err != nil {
				return err
			}
		}
	case *iceberg.MapType:
		for i, e := range v.(data.Map) {
			p := fmt.Sprintf("%s[%d]", path, i)
			if err := checkNested(t.KeyType, e.Key, p+".key"); err != nil {
				return err
			}
			if e.Value == nil {
				if t.ValueRequired {
					return &ColumnError{p, errors.New("map values are required, but this one is null")}
				}
				continue
			}
			if err := checkNested(t.ValueType, e.Value, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// CSVHeader checks a CSV header row against the schema: every name must be
// a top-level column, none twice, and every required column present.
func (c *Codec) CSVHeader(header []string) (*CSVLayout, error) {
	l := &CSVLayout{positions: make([]int, len(header))}
	seen := make([]bool, len(c.columns))
	for i, name := range header {
		pos, ok := c.index[name]
		if !ok {
			return nil, fmt.Errorf("header names column %q, which is not in the schema (columns: %s)", name, c.names())
		}
		if seen[pos] {
			return nil, fmt.Errorf("header names column %q twice", name)
		}
		seen[pos] = true
		l.positions[i] = pos
	}
	for pos, col := range c.columns {
		if !seen[pos] && col.field.Required {
			return nil, fmt.Errorf("header has no column %q, which the schema requires", col.field.Name)
		}
	}
	return l, nil
}

// CSVLayout maps CSV cells to columns.
type CSVLayout struct{ positions []int }

// DecodeCSV converts one CSV row. An empty cell is null (CSV cannot tell an
// empty string from a missing one). A primitive cell holds the value as it
// would appear inside a JSON string, without quotes (numbers, true/false,
// dates, hex, ...); a struct, list, map, variant, VECTOR or FILE cell holds
// the value's JSON text.
func (c *Codec) DecodeCSV(l *CSVLayout, cells []string) (*data.Record, error) {
	if len(cells) != len(l.positions) {
		return nil, fmt.Errorf("%d cells, the header has %d", len(cells), len(l.positions))
	}
	rec := data.NewStructRecord(c.st)
	for i, cell := range cells {
		pos := l.positions[i]
		if cell == "" {
			continue
		}
		col := &c.columns[pos]
		var n *node
		if _, primitive := col.field.Type.(iceberg.PrimitiveType); primitive && col.vector == nil {
			n = cellNode(col.field.Type, cell)
		} else {
			var err error
			if n, err = parseJSON([]byte(cell)); err != nil {
				return nil, &ColumnError{col.field.Name, fmt.Errorf("a %s cell holds JSON: %w", typeName(col), err)}
			}
		}
		v, err := c.decodeColumn(pos, n)
		if err != nil {
			return nil, err
		}
		rec.Set(pos, v)
	}
	return rec, c.checkRequired(rec)
}

func typeName(col *column) string {
	switch {
	case col.vector != nil:
		return col.vector.TypeName()
	case col.file != nil:
		return "FILE"
	}
	return col.field.Type.String()
}

// cellNode reads a primitive CSV cell as the JSON value it stands for.
func cellNode(t iceberg.Type, cell string) *node {
	switch t.(type) {
	case iceberg.BooleanType:
		if cell == "true" || cell == "false" {
			return &node{kind: kBool, text: cell}
		}
	case iceberg.Int32Type, iceberg.Int64Type:
		return &node{kind: kNumber, text: cell}
	case iceberg.Float32Type, iceberg.Float64Type:
		if !slices.Contains(nonFinite, cell) {
			return &node{kind: kNumber, text: cell}
		}
	}
	return &node{kind: kString, text: cell}
}
