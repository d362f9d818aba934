package schemaspec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/coltype"
)

// CompactSyntax describes the compact form, for help texts.
const CompactSyntax = `schema  = column { "," column }
column  = name ":" type [ "!" ]          "!" makes the column required
name    = letter or "_", then letters, digits, "_"
type    = boolean | int | long | float | double | date | time
        | timestamp | timestamptz | timestamp_ns | timestamptz_ns
        | string | uuid | binary | variant
        | decimal(P,S) | fixed[L]
        | list<type[!]>                  "!" makes the elements required
        | map<type,type[!]>              keys are always required; "!" makes the values required
        | struct<column{,column}>
        | file | file<child{,child}>     FILE; children of uri, offset, size,
                                         content_type, checksum, inline (default: all)
        | vector<element,dim>            VECTOR of float32, float64, float16 or int8
        | NAME | NAME<...>               another type a package registered
                                         (data/coltype), e.g. unit_interval
file, vector and the other registered types are top-level only. Spaces between tokens are ignored.
Field ids are assigned depth-first from 1 in the order written (a column,
then what it contains); a FILE column reserves the six ids after its own for
its children (id+1 uri ... id+6 inline), as the Iceberg FILE mirror does.`

var primitiveTypes = map[string]iceberg.Type{
	"boolean":        iceberg.PrimitiveTypes.Bool,
	"int":            iceberg.PrimitiveTypes.Int32,
	"long":           iceberg.PrimitiveTypes.Int64,
	"float":          iceberg.PrimitiveTypes.Float32,
	"double":         iceberg.PrimitiveTypes.Float64,
	"date":           iceberg.PrimitiveTypes.Date,
	"time":           iceberg.PrimitiveTypes.Time,
	"timestamp":      iceberg.PrimitiveTypes.Timestamp,
	"timestamptz":    iceberg.PrimitiveTypes.TimestampTz,
	"timestamp_ns":   iceberg.PrimitiveTypes.TimestampNs,
	"timestamptz_ns": iceberg.PrimitiveTypes.TimestampTzNs,
	"string":         iceberg.PrimitiveTypes.String,
	"uuid":           iceberg.PrimitiveTypes.UUID,
	"binary":         iceberg.PrimitiveTypes.Binary,
	"variant":        iceberg.VariantType{},
}

// maxNesting is how deep types may nest in the compact form: the lab's one
// schema limit, as for the JSON form (ParseJSON) and the schemas of Parquet
// and Avro files. The parser recurses once per level; without a bound
// 100,000 levels of "list<" (1.2 MB of text) took gigabytes, and 9,999 took
// iceberg-go 96 s and 2.2 GB after the parser.
const maxNesting = data.MaxSchemaDepth

// Parse reads the compact form (CompactSyntax).
func Parse(text string) (*Spec, error) {
	p := &compactParser{src: text, next: 1, spec: &Spec{}}
	fields, err := p.columns(true, 0)
	if err != nil {
		return nil, err
	}
	p.spec.Schema = iceberg.NewSchema(0, fields...)
	if err := p.spec.bindPending(p.pending); err != nil {
		return nil, err
	}
	return p.spec, nil
}

// bindPending declares the columns a schema form typed with registered
// types, once the schema holds their fields.
func (s *Spec) bindPending(decls []coltype.Decl) error {
	for _, d := range decls {
		if err := s.add("schema", d); err != nil {
			return err
		}
	}
	return nil
}

type compactParser struct {
	src   string
	pos   int
	next  int // the next field id
	depth int // types open around the one being read
	spec  *Spec
	// pending are the columns of registered types, bound to their fields
	// once the schema is built.
	pending []coltype.Decl
}

// fail reports an error at the current position, quoting the text there.
func (p *compactParser) fail(format string, args ...any) error {
	near := p.src[p.pos:]
	if len(near) > 24 {
		near = near[:24] + "..."
	}
	where := "at the end"
	if near != "" {
		where = fmt.Sprintf("at offset %d (%q)", p.pos, near)
	}
	return fmt.Errorf("schema %s: "+format, append([]any{where}, args...)...)
}

func (p *compactParser) skipSpace() {
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
}

// accept consumes c if it comes next.
func (p *compactParser) accept(c byte) bool {
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *compactParser) expect(c byte, what string) error {
	if !p.accept(c) {
		return p.fail("want %q %s", c, what)
	}
	return nil
}

// word reads a name or a type keyword.
func (p *compactParser) word() string {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || p.pos > start && '0' <= c && c <= '9' {
			p.pos++
			continue
		}
		break
	}
	return p.src[start:p.pos]
}

func (p *compactParser) number(what string) (int, error) {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.src) && '0' <= p.src[p.pos] && p.src[p.pos] <= '9' {
		p.pos++
	}
	n, err := strconv.Atoi(p.src[start:p.pos])
	if err != nil {
		p.pos = start
		return 0, p.fail("want %s, a non-negative integer", what)
	}
	return n, nil
}

// columns reads a column list up to close (0: the end of the text).
func (p *compactParser) columns(top bool, close byte) ([]iceberg.NestedField, error) {
	var fields []iceberg.NestedField
	seen := map[string]bool{}
	for {
		f, err := p.column(top)
		if err != nil {
			return nil, err
		}
		if seen[f.Name] {
			return nil, fmt.Errorf("schema: column %q is declared twice", f.Name)
		}
		seen[f.Name] = true
		fields = append(fields, f)
		if p.accept(',') {
			continue
		}
		p.skipSpace()
		if close == 0 && p.pos == len(p.src) || close != 0 && p.pos < len(p.src) && p.src[p.pos] == close {
			return fields, nil
		}
		if close == 0 {
			return nil, p.fail(`want "," before the next column`)
		}
		return nil, p.fail("want %q or %q", ',', close)
	}
}

func (p *compactParser) column(top bool) (iceberg.NestedField, error) {
	name := p.word()
	if name == "" {
		return iceberg.NestedField{}, p.fail("want a column name (a letter or _, then letters, digits, _)")
	}
	if err := p.expect(':', "after column name "+strconv.Quote(name)); err != nil {
		return iceberg.NestedField{}, err
	}
	id := p.next
	p.next++
	t, err := p.typ(top, name, id)
	if err != nil {
		return iceberg.NestedField{}, err
	}
	return iceberg.NestedField{ID: id, Name: name, Type: t, Required: p.accept('!')}, nil
}

func (p *compactParser) typ(top bool, column string, id int) (iceberg.Type, error) {
	if p.depth >= maxNesting {
		p.skipSpace()
		return nil, p.fail("column %q: types nest deeper than %d levels: %w", column, maxNesting, data.ErrSchemaTooDeep)
	}
	p.depth++
	defer func() { p.depth-- }()
	start := p.pos
	name := p.word()
	if t, ok := primitiveTypes[name]; ok {
		return t, nil
	}
	switch name {
	case "decimal":
		if err := p.expect('(', "after decimal"); err != nil {
			return nil, err
		}
		prec, err := p.number("the precision")
		if err != nil {
			return nil, err
		}
		if err := p.expect(',', "between precision and scale"); err != nil {
			return nil, err
		}
		scale, err := p.number("the scale")
		if err != nil {
			return nil, err
		}
		if err := p.expect(')', "after the scale"); err != nil {
			return nil, err
		}
		// Iceberg's decimal: precision up to 38, scale within the precision.
		if prec < 1 || prec > 38 || scale > prec {
			return nil, fmt.Errorf("schema: column %q: decimal(%d,%d) needs 1 <= precision <= 38 and scale <= precision", column, prec, scale)
		}
		return iceberg.DecimalTypeOf(prec, scale), nil
	case "fixed":
		if err := p.expect('[', "after fixed"); err != nil {
			return nil, err
		}
		n, err := p.number("the length")
		if err != nil {
			return nil, err
		}
		if err := p.expect(']', "after the length"); err != nil {
			return nil, err
		}
		if n < 1 || n > 1<<30 {
			return nil, fmt.Errorf("schema: column %q: fixed[%d] needs a length from 1 to 2^30", column, n)
		}
		return iceberg.FixedTypeOf(n), nil
	case "list":
		if err := p.expect('<', "after list"); err != nil {
			return nil, err
		}
		elemID := p.next
		p.next++
		elem, err := p.typ(false, column, elemID)
		if err != nil {
			return nil, err
		}
		required := p.accept('!')
		if err := p.expect('>', "to close list<"); err != nil {
			return nil, err
		}
		return &iceberg.ListType{ElementID: elemID, Element: elem, ElementRequired: required}, nil
	case "map":
		if err := p.expect('<', "after map"); err != nil {
			return nil, err
		}
		keyID := p.next
		p.next++
		key, err := p.typ(false, column, keyID)
		if err != nil {
			return nil, err
		}
		p.accept('!') // map keys are always required
		if err := p.expect(',', "between the key and value types"); err != nil {
			return nil, err
		}
		valueID := p.next
		p.next++
		value, err := p.typ(false, column, valueID)
		if err != nil {
			return nil, err
		}
		required := p.accept('!')
		if err := p.expect('>', "to close map<"); err != nil {
			return nil, err
		}
		return &iceberg.MapType{KeyID: keyID, KeyType: key, ValueID: valueID, ValueType: value, ValueRequired: required}, nil
	case "struct":
		if err := p.expect('<', "after struct"); err != nil {
			return nil, err
		}
		fields, err := p.columns(false, '>')
		if err != nil {
			return nil, err
		}
		p.pos++ // the '>' columns stopped at
		return &iceberg.StructType{FieldList: fields}, nil
	case "":
		return nil, p.fail("column %q: want a type", column)
	}
	if t, ok := coltype.Lookup(name); ok {
		return p.registered(t, top, column, id, start)
	}
	p.pos = start
	return nil, p.fail("column %q: unknown type %q", column, name)
}

// registered reads the spelling of a registered type whose name was just
// read: the name, and its <...> when one follows, which the type parses.
func (p *compactParser) registered(t *coltype.Type, top bool, column string, id, start int) (iceberg.Type, error) {
	if !top {
		p.pos = start
		return nil, p.fail("column %q: %s columns are top-level only (%s names top-level columns)", column, t.Display(), t.Property)
	}
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '<' {
		depth := 0
		for ; p.pos < len(p.src); p.pos++ {
			if p.src[p.pos] == '<' {
				depth++
			} else if p.src[p.pos] == '>' {
				if depth--; depth == 0 {
					break
				}
			}
		}
		if p.pos == len(p.src) {
			return nil, p.fail("want %q to close %s<", '>', t.Name)
		}
		p.pos++
	}
	d, err := t.Parse(column, p.src[start:p.pos])
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	typ, err := d.IcebergType(id)
	if err != nil {
		return nil, fmt.Errorf("schema: column %q: %w", column, err)
	}
	p.next += t.ReservedIDs
	p.pending = append(p.pending, d)
	return typ, nil
}
