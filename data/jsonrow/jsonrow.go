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
//	registered types   the type's own codec (data/coltype), such as
//	                   VECTOR: a JSON array of exactly dim numbers of the
//	                   element type (floats may use the non-finite strings);
//	                   FILE: an object with the FILE children {"uri",
//	                   "offset", "size", "content_type", "checksum",
//	                   "inline"}, inline in hex, that passes the FILE spec's
//	                   rules (types/vector, types/file)
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
	"github.com/coltype-lab/lab/data/coltype"
	"github.com/coltype-lab/lab/data/schemaspec"
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
	// Check, when set, is called with every non-null value of a
	// registered type that its codec accepted (for FILE: one that passes
	// the spec's rules), to apply a further policy (a resolver's schemes
	// and roots). Its error is reported against the column.
	Check func(column string, d coltype.Decl, v any) error
}

// column is how one top-level column converts: by its Iceberg type, or by
// its registered type's codec when decl is set.
type column struct {
	field iceberg.NestedField
	decl  coltype.Decl
}

// New returns a codec for spec.
func New(spec *schemaspec.Spec) (*Codec, error) {
	st := spec.Schema.AsStruct()
	c := &Codec{spec: spec, st: &st, index: map[string]int{}}
	for i, f := range st.FieldList {
		col := column{field: f}
		if d, ok := spec.Decl(f.Name); ok {
			bound, err := d.Bind(f) // the spec's are bound; one built by hand may not be
			if err != nil {
				return nil, &ColumnError{f.Name, err}
			}
			col.decl = bound
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
	n, err := parseRow(line, c.codecReads)
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

// codecReads reports whether a top-level key is a column of a registered
// type, whose codec reads the value's text itself.
func (c *Codec) codecReads(key string) bool {
	pos, ok := c.index[key]
	return ok && c.columns[pos].decl != nil
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
	if col.decl != nil {
		v, err = col.decl.DecodeJSON(n.raw, func(text []byte) (any, error) {
			m := n // the node of n.raw when it was parsed into; other text is parsed here
			if n.shallow || len(text) != len(n.raw) || len(text) > 0 && &text[0] != &n.raw[0] {
				var perr error
				if m, perr = parseJSON(text); perr != nil {
					return nil, perr
				}
			}
			return decodeValue(col.field.Type, m, name)
		})
		if err == nil && c.Check != nil {
			err = c.Check(name, col.decl, v)
		}
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
	return v, nil
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
// dates, hex, ...); a struct, list, map or variant cell, and a cell of a
// registered type (VECTOR, FILE, ...), holds the value's JSON text.
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
		if _, primitive := col.field.Type.(iceberg.PrimitiveType); primitive && col.decl == nil {
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
	case col.decl != nil && col.decl.Type().FromField != nil:
		return col.decl.Type().Display() // "FILE": its field says the rest
	case col.decl != nil:
		return col.decl.TypeName() // "vector<float32,768>"
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
		if !slices.Contains(coltype.NonFinite, cell) {
			return &node{kind: kNumber, text: cell}
		}
	}
	return &node{kind: kString, text: cell}
}
