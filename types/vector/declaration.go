package vector

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxDim bounds a declared dimension, so that a vector's fixed length in
// bytes (dim × width, at most 8 bytes an element) fits Parquet's 32-bit
// type_length.
const MaxDim = 1 << 24

// Declaration is one VECTOR column as the lab's tools declare it: in the
// Parquet model's write.parquet.vector-columns property ("name:element:dim")
// and in lab write's schemas.
type Declaration struct {
	Column  string
	Element ElementType
	Dim     int
}

// ParseDeclarations parses a comma-separated list of name:element:dim
// declarations; blank entries are skipped.
func ParseDeclarations(list string) ([]Declaration, error) {
	var out []Declaration
	for _, decl := range strings.Split(list, ",") {
		if decl = strings.TrimSpace(decl); decl == "" {
			continue
		}
		parts := strings.Split(decl, ":")
		if len(parts) != 3 {
			return nil, fmt.Errorf("%q is not name:element:dim", decl)
		}
		d, err := ParseDeclaration(strings.TrimSpace(parts[0]), parts[1], parts[2])
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// ParseDeclaration checks one column's element type and dimension. The
// element must have a Parquet representation: bfloat16 has none, so readers
// could not tell it from float16.
func ParseDeclaration(column, element, dim string) (Declaration, error) {
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

// String is the declaration as write.parquet.vector-columns spells it.
func (d Declaration) String() string { return fmt.Sprintf("%s:%s:%d", d.Column, d.Element, d.Dim) }

// TypeName is the lab's type name for the column: vector<element,dim>.
func (d Declaration) TypeName() string { return fmt.Sprintf("vector<%s,%d>", d.Element, d.Dim) }
