package vector

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/coltype-lab/lab/data/coltype"
)

// MaxDim bounds a declared dimension, so that a vector's fixed length in
// bytes (dim × width, at most 8 bytes an element) fits Parquet's 32-bit
// type_length.
const MaxDim = 1 << 24

// Declaration is one VECTOR column as the lab's tools declare it. Every
// declaration goes through one grammar, read by ParseType:
//
//	declaration = COLUMN ":" type
//	type        = "vector<" ELEMENT "," DIM ">"   the canonical spelling
//	            | ELEMENT ":" DIM                 legacy, read only
//
// The canonical spelling is the schemas' type (emb:vector<float32,768> in
// the compact form, "vector<float32,768>" in the JSON form), the
// write.parquet.vector-columns property's and the lab.vector-columns Avro
// header's entries (emb:vector<float32,768>,b:vector<int8,16>: the list's
// commas are those outside <>), and lab annotate --vector's, which may add
// settings after it (ParseDeclarationSettings). The legacy spelling
// emb:float32:768 is what the lab wrote in table properties and Avro
// headers before; the parser still reads it wherever it reads a
// declaration (not in schemas, whose types are words), and nothing writes it.
// ELEMENT is float32, float64, float16 or int8 (or an alias
// ParseElementType takes); DIM is 1 to MaxDim. Spaces around the tokens are
// ignored.
type Declaration struct {
	Column  string
	Element ElementType
	Dim     int
}

// ParseDeclarations reads a comma-separated list of declarations (the
// property's value); blank entries are skipped.
func ParseDeclarations(list string) ([]Declaration, error) {
	var out []Declaration
	for _, decl := range coltype.SplitList(list) {
		d, err := ParseDeclaration(decl)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// ParseDeclaration reads one declaration, COLUMN:TYPE.
func ParseDeclaration(text string) (Declaration, error) {
	column, spelling, ok := strings.Cut(strings.TrimSpace(text), ":")
	column = strings.TrimSpace(column)
	switch {
	case column == "":
		return Declaration{}, fmt.Errorf("%q has no column name: want COLUMN:vector<ELEMENT,DIM>", text)
	case !ok:
		return Declaration{}, fmt.Errorf("column %q: no type: want %s:vector<ELEMENT,DIM>", column, column)
	}
	return ParseType(column, spelling)
}

// A Setting is a key=value after a declaration (lab annotate --vector).
type Setting struct{ Key, Value string }

// ParseDeclarationSettings reads a declaration followed by settings, each
// after a semicolon: COLUMN:vector<ELEMENT,DIM>[;KEY=VALUE...], as lab
// annotate --vector takes it (a.emb:vector<float32,768>;id=33;layout=list).
// The caller says which keys it knows; a key given twice is an error.
func ParseDeclarationSettings(text string) (Declaration, []Setting, error) {
	parts := strings.Split(text, ";")
	d, err := ParseDeclaration(parts[0])
	if err != nil {
		return Declaration{}, nil, err
	}
	var settings []Setting
	seen := map[string]bool{}
	for _, kv := range parts[1:] {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return Declaration{}, nil, fmt.Errorf("column %q: setting %q is not key=value", d.Column, kv)
		}
		if seen[k] {
			return Declaration{}, nil, fmt.Errorf("column %q: setting %s given twice", d.Column, k)
		}
		seen[k] = true
		settings = append(settings, Setting{k, v})
	}
	return d, settings, nil
}

// ParseType reads a column's type: vector<ELEMENT,DIM>, or the legacy
// ELEMENT:DIM.
func ParseType(column, spelling string) (Declaration, error) {
	s := strings.TrimSpace(spelling)
	if rest, ok := strings.CutPrefix(s, "vector"); ok {
		rest = strings.TrimSpace(rest)
		inner, ok := strings.CutPrefix(rest, "<")
		if !ok || !strings.HasSuffix(inner, ">") {
			return Declaration{}, fmt.Errorf("column %q: %q is not vector<ELEMENT,DIM>", column, s)
		}
		element, dim, ok := strings.Cut(strings.TrimSuffix(inner, ">"), ",")
		if !ok || strings.Contains(dim, ",") {
			return Declaration{}, fmt.Errorf("column %q: %q is not vector<ELEMENT,DIM>: want an element type and a dimension between the brackets", column, s)
		}
		return newDeclaration(column, element, dim)
	}
	if element, dim, ok := strings.Cut(s, ":"); ok && !strings.Contains(dim, ":") {
		return newDeclaration(column, element, dim) // legacy
	}
	if s == "" {
		return Declaration{}, fmt.Errorf("column %q: no type: want vector<ELEMENT,DIM>", column)
	}
	return Declaration{}, fmt.Errorf("column %q: %q is not vector<ELEMENT,DIM> (or the legacy ELEMENT:DIM)", column, s)
}

// newDeclaration checks one column's element type and dimension. The
// element must have a Parquet representation: bfloat16 has none, so
// readers could not tell it from float16.
func newDeclaration(column, element, dim string) (Declaration, error) {
	et, err := ParseElementType(strings.TrimSpace(element))
	if err != nil {
		return Declaration{}, fmt.Errorf("column %q: %w", column, err)
	}
	if _, ok := et.ParquetElement(); !ok {
		return Declaration{}, fmt.Errorf("column %q: element type %s has no Parquet representation (no physical or logical type holds it), so readers could not tell it from float16", column, et)
	}
	dim = strings.TrimSpace(dim)
	n, err := strconv.Atoi(dim)
	if err != nil || n <= 0 {
		return Declaration{}, fmt.Errorf("column %q: dimension %q is not a positive integer", column, dim)
	}
	if n > MaxDim {
		return Declaration{}, fmt.Errorf("column %q: VECTOR dimension %d is above the lab's limit of %d", column, n, MaxDim)
	}
	return Declaration{Column: column, Element: et, Dim: n}, nil
}

// String is the declaration in the canonical spelling, as
// write.parquet.vector-columns lists it: emb:vector<float32,768>.
func (d Declaration) String() string { return d.Column + ":" + d.TypeName() }

// TypeName is the lab's type name for the column: vector<element,dim>.
func (d Declaration) TypeName() string { return fmt.Sprintf("vector<%s,%d>", d.Element, d.Dim) }
