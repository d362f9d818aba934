package table

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/apache/iceberg-go"
)

// FilterSyntax describes ParseFilter's input, for help texts. iceberg-go
// v0.7.0 parses only the REST JSON form of an expression (iceberg.ParseExpr),
// so the lab reads that and a small text form.
const FilterSyntax = `expr      = term { "or" term }
term      = factor { "and" factor }
factor    = "not" factor | "(" expr ")" | predicate
predicate = column op literal            op: = == != <> < <= > >=
          | column "is" ["not"] "null"
          | column "is" ["not"] "nan"
          | column ["not"] "in" "(" literal { "," literal } ")"
          | column "starts_with" literal
column    = a name, dotted for a nested field (img.size), or in backquotes
          | "variant_get" "(" name "," path "," type ")"
            the value at a path of a variant column, as Spark's
            variant_get and Iceberg's extract term read it:
            variant_get(v, '$.user.id', 'long') > 1000; path is an
            RFC 9535 member path ($.a.b or $['a']['b']), type one of
            boolean int long float double string date time timestamp
            timestamptz (bigint and integer are long and int). It prunes
            data files by their variant bounds and row groups and pages
            by the shredded typed_value column.
literal   = a number, true, false, or a 'quoted' or "quoted" string; it is
            read as the column's type: dates "2024-05-01", timestamps
            "2024-05-01T10:00:00", uuids, decimals as text
Keywords are case-insensitive. An expression may also be given in Iceberg's
REST JSON form, e.g. {"type":"gt","term":"id","value":10}.`

// ParseFilter reads a row filter in FilterSyntax (or REST JSON) against
// schema; literals are converted to their column's type, so a bad literal
// fails here, naming the column.
func ParseFilter(text string, schema *iceberg.Schema, caseSensitive bool) (iceberg.BooleanExpression, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return iceberg.AlwaysTrue{}, nil
	}
	if strings.HasPrefix(text, "{") {
		e, err := iceberg.ParseExpr([]byte(text), schema)
		if err != nil {
			return nil, fmt.Errorf("filter %s: %w", text, err)
		}
		return e, nil
	}
	toks, err := lexFilter(text)
	if err != nil {
		return nil, err
	}
	p := &filterParser{src: text, toks: toks, schema: schema, cs: caseSensitive}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.toks) {
		return nil, p.fail("unexpected %q", p.toks[p.pos].text)
	}
	if _, err := iceberg.BindExpr(schema, e, caseSensitive); err != nil {
		return nil, fmt.Errorf("filter %q: %w", text, err)
	}
	return e, nil
}

type tokKind uint8

const (
	tWord tokKind = iota // names and keywords
	tNumber
	tString
	tOp
	tPunct // ( ) ,
)

type token struct {
	kind tokKind
	text string
	at   int
}

func lexFilter(s string) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(' || c == ')' || c == ',':
			out = append(out, token{tPunct, string(c), i})
			i++
		case strings.ContainsRune("=!<>", rune(c)):
			j := i + 1
			if j < len(s) && (s[j] == '=' || (c == '<' && s[j] == '>')) {
				j++
			}
			op := s[i:j]
			if op == "!" {
				return nil, fmt.Errorf("filter %q: offset %d: '!' must be '!='", s, i)
			}
			out = append(out, token{tOp, op, i})
			i = j
		case c == '\'' || c == '"' || c == '`':
			var sb strings.Builder
			j := i + 1
			for ; j < len(s); j++ {
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c { // doubled quote
						sb.WriteByte(c)
						j++
						continue
					}
					break
				}
				sb.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("filter %q: offset %d: unterminated %c", s, i, c)
			}
			kind := tString
			if c == '`' {
				kind = tWord
			}
			out = append(out, token{kind, sb.String(), i})
			i = j + 1
		case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(s) && (isNumberChar(s[j]) || ((s[j] == '-' || s[j] == '+') && (s[j-1] == 'e' || s[j-1] == 'E'))) {
				j++
			}
			out = append(out, token{tNumber, s[i:j], i})
			i = j
		case c == '_' || unicode.IsLetter(rune(c)):
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] == '.' || unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j]))) {
				j++
			}
			out = append(out, token{tWord, s[i:j], i})
			i = j
		default:
			return nil, fmt.Errorf("filter %q: offset %d: unexpected %q", s, i, c)
		}
	}
	return out, nil
}

func isNumberChar(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E'
}

type filterParser struct {
	src    string
	toks   []token
	pos    int
	schema *iceberg.Schema
	cs     bool
}

func (p *filterParser) fail(format string, args ...any) error {
	at := len(p.src)
	if p.pos < len(p.toks) {
		at = p.toks[p.pos].at
	}
	return fmt.Errorf("filter %q: offset %d: %s", p.src, at, fmt.Sprintf(format, args...))
}

func (p *filterParser) peek() (token, bool) {
	if p.pos >= len(p.toks) {
		return token{}, false
	}
	return p.toks[p.pos], true
}

// keyword consumes the word kw (case-insensitive) if it comes next.
func (p *filterParser) keyword(kw string) bool {
	if t, ok := p.peek(); ok && t.kind == tWord && strings.EqualFold(t.text, kw) {
		p.pos++
		return true
	}
	return false
}

func (p *filterParser) punct(c string) bool {
	if t, ok := p.peek(); ok && t.kind == tPunct && t.text == c {
		p.pos++
		return true
	}
	return false
}

func (p *filterParser) or() (iceberg.BooleanExpression, error) {
	left, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.keyword("or") {
		right, err := p.and()
		if err != nil {
			return nil, err
		}
		left = iceberg.NewOr(left, right)
	}
	return left, nil
}

func (p *filterParser) and() (iceberg.BooleanExpression, error) {
	left, err := p.factor()
	if err != nil {
		return nil, err
	}
	for p.keyword("and") {
		right, err := p.factor()
		if err != nil {
			return nil, err
		}
		left = iceberg.NewAnd(left, right)
	}
	return left, nil
}

func (p *filterParser) factor() (iceberg.BooleanExpression, error) {
	if p.keyword("not") {
		e, err := p.factor()
		if err != nil {
			return nil, err
		}
		return iceberg.NewNot(e), nil
	}
	if p.punct("(") {
		e, err := p.or()
		if err != nil {
			return nil, err
		}
		if !p.punct(")") {
			return nil, p.fail("want )")
		}
		return e, nil
	}
	return p.predicate()
}

var filterOps = map[string]iceberg.Operation{
	"=": iceberg.OpEQ, "==": iceberg.OpEQ, "!=": iceberg.OpNEQ, "<>": iceberg.OpNEQ,
	"<": iceberg.OpLT, "<=": iceberg.OpLTEQ, ">": iceberg.OpGT, ">=": iceberg.OpGTEQ,
}

func (p *filterParser) predicate() (iceberg.BooleanExpression, error) {
	t, ok := p.peek()
	if !ok {
		return nil, p.fail("want a column")
	}
	if t.kind != tWord {
		return nil, p.fail("want a column, not %q", t.text)
	}
	p.pos++
	column := t.text
	var ref iceberg.UnboundTerm
	var field iceberg.NestedField
	if strings.EqualFold(column, "variant_get") && p.punct("(") {
		var err error
		if ref, field, err = p.variantGet(); err != nil {
			return nil, err
		}
	} else {
		if field, ok = p.field(column); !ok {
			return nil, p.fail("no column %q in the table schema", column)
		}
		ref = iceberg.Reference(column)
	}
	switch {
	case p.keyword("is"):
		not := p.keyword("not")
		switch {
		case p.keyword("null"):
			if not {
				return iceberg.NotNull(ref), nil
			}
			return iceberg.IsNull(ref), nil
		case p.keyword("nan"):
			if not {
				return iceberg.NotNaN(ref), nil
			}
			return iceberg.IsNaN(ref), nil
		}
		return nil, p.fail("want null or nan after is")
	case p.keyword("in"):
		return p.in(ref, field, false)
	case p.keyword("not"):
		if !p.keyword("in") {
			return nil, p.fail("want in after not")
		}
		return p.in(ref, field, true)
	case p.keyword("starts_with"):
		lit, err := p.literal(field)
		if err != nil {
			return nil, err
		}
		return iceberg.LiteralPredicate(iceberg.OpStartsWith, ref, lit), nil
	}
	op, ok := p.peek()
	if !ok || op.kind != tOp {
		return nil, p.fail("want an operator (= != < <= > >= is in starts_with) after %s", column)
	}
	p.pos++
	lit, err := p.literal(field)
	if err != nil {
		return nil, err
	}
	return iceberg.LiteralPredicate(filterOps[op.text], ref, lit), nil
}

func (p *filterParser) in(ref iceberg.UnboundTerm, field iceberg.NestedField, not bool) (iceberg.BooleanExpression, error) {
	if !p.punct("(") {
		return nil, p.fail("want ( after in")
	}
	var lits []iceberg.Literal
	for {
		lit, err := p.literal(field)
		if err != nil {
			return nil, err
		}
		lits = append(lits, lit)
		if p.punct(")") {
			break
		}
		if !p.punct(",") {
			return nil, p.fail("want , or )")
		}
	}
	op := iceberg.OpIn
	if not {
		op = iceberg.OpNotIn
	}
	return iceberg.SetPredicate(op, ref, lits), nil
}

// variantTypes are the types variant_get reads a path as: Iceberg's
// names, and Spark SQL's for the integers.
var variantTypes = map[string]iceberg.PrimitiveType{
	"boolean": iceberg.PrimitiveTypes.Bool, "int": iceberg.PrimitiveTypes.Int32, "integer": iceberg.PrimitiveTypes.Int32,
	"long": iceberg.PrimitiveTypes.Int64, "bigint": iceberg.PrimitiveTypes.Int64,
	"float": iceberg.PrimitiveTypes.Float32, "double": iceberg.PrimitiveTypes.Float64,
	"string": iceberg.PrimitiveTypes.String, "date": iceberg.PrimitiveTypes.Date, "time": iceberg.PrimitiveTypes.Time,
	"timestamp": iceberg.PrimitiveTypes.Timestamp, "timestamptz": iceberg.PrimitiveTypes.TimestampTz,
}

// variantGet reads the rest of variant_get(column, 'path', 'type'): the
// extract term, and a field of the type the literals are read as.
func (p *filterParser) variantGet() (iceberg.UnboundTerm, iceberg.NestedField, error) {
	t, ok := p.peek()
	if !ok || t.kind != tWord {
		return nil, iceberg.NestedField{}, p.fail("want a variant column in variant_get")
	}
	p.pos++
	field, ok := p.field(t.text)
	if !ok {
		return nil, field, p.fail("no column %q in the table schema", t.text)
	}
	if _, isVariant := field.Type.(iceberg.VariantType); !isVariant {
		return nil, field, p.fail("variant_get: column %q is %s, not variant", t.text, field.Type)
	}
	var args [2]string
	for i, what := range []string{"a path", "a type"} {
		if !p.punct(",") {
			return nil, field, p.fail("want , and %s in variant_get", what)
		}
		a, ok := p.peek()
		if !ok || a.kind != tString {
			return nil, field, p.fail("want %s in quotes in variant_get", what)
		}
		p.pos++
		args[i] = a.text
	}
	if !p.punct(")") {
		return nil, field, p.fail("want ) to close variant_get")
	}
	if !strings.HasPrefix(args[0], "$") {
		return nil, field, p.fail("variant_get: path %q does not start with $", args[0])
	}
	typ, ok := variantTypes[strings.ToLower(args[1])]
	if !ok {
		return nil, field, p.fail("variant_get: type %q is not one of boolean int long float double string date time timestamp timestamptz", args[1])
	}
	term := iceberg.Extract(iceberg.Reference(t.text), args[0], typ)
	return term, iceberg.NestedField{ID: field.ID, Name: field.Name, Type: typ}, nil
}

func (p *filterParser) field(name string) (iceberg.NestedField, bool) {
	if p.cs {
		return p.schema.FindFieldByName(name)
	}
	return p.schema.FindFieldByNameCaseInsensitive(name)
}

// literal reads one literal as the column's type.
func (p *filterParser) literal(field iceberg.NestedField) (iceberg.Literal, error) {
	t, ok := p.peek()
	if !ok || (t.kind != tNumber && t.kind != tString && t.kind != tWord) {
		return nil, p.fail("want a literal for column %s", field.Name)
	}
	if t.kind == tWord && !strings.EqualFold(t.text, "true") && !strings.EqualFold(t.text, "false") {
		return nil, p.fail("want a literal for column %s, not %q (quote strings)", field.Name, t.text)
	}
	text := t.text
	if t.kind == tWord {
		text = strings.ToLower(text)
	}
	prim, ok := field.Type.(iceberg.PrimitiveType)
	if !ok {
		return nil, p.fail("column %s is %s; filters compare primitive columns", field.Name, field.Type)
	}
	lit, err := iceberg.NewLiteral(text).To(prim)
	if err != nil {
		return nil, p.fail("column %s is %s: %v", field.Name, field.Type, err)
	}
	p.pos++
	return lit, nil
}
