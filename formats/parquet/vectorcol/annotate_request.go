package vectorcol

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/coltype-lab/lab/formats/parquet/annotate/request"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/types/vector"
)

// AnnotateTypeName names VECTOR's request.Type
// (lab annotate --vector and --type).
const AnnotateTypeName = "vector"

func init() {
	request.Register(request.Type{
		Name:   AnnotateTypeName,
		Syntax: "COLUMN:vector<ELEMENT,DIM>[;id=N][;layout=L]",
		Usage: `VECTOR on a 3-level list group (group, repeated middle group, one
element): DIM elements of ELEMENT (float32, float64, float16 or int8),
which the element column's type is checked against. The declaration is
spelt as in schemas and write.parquet.vector-columns; settings may
follow, each after a ";":
  id=N       the VECTOR union id (default 20; not 1-19)
  layout=L   list (default: the middle group stays REPEATED, every
             reader still reads a list),
             vector-repetition (PR #592: the middle group becomes
             VECTOR with vector_length; a shape change that must be
             allowed, lab annotate --allow-vector-repetition, and only
             right for data written with VECTOR levels), or
             flba (VECTOR on a FIXED_LEN_BYTE_ARRAY leaf of DIM times
             the element's width bytes)`,
		Parse: parseAnnotateRequest,
	})
}

// parseAnnotateRequest reads COLUMN:vector<ELEMENT,DIM>[;id=N][;layout=L]
// (or the legacy COLUMN:ELEMENT:DIM) with types/vector's one declaration
// parser.
func parseAnnotateRequest(spec string) (request.Request, error) {
	a := request.Request{Name: spec, Annotation: footer.Annotation{Kind: footer.KindVector}}
	fail := func(format string, args ...any) (request.Request, error) {
		return request.Request{}, fmt.Errorf(format, args...)
	}
	if col, params, ok := strings.Cut(spec, ":"); ok && strings.Contains(params, "dim=") {
		return fail("the COLUMN:dim=N,element=T form is gone: write '%s:vector<ELEMENT,DIM>[;id=N][;layout=L]'", col)
	}
	d, settings, err := vector.ParseDeclarationSettings(spec)
	if err != nil {
		return fail("%v", err)
	}
	if a.Path, err = request.ColumnPath(d.Column); err != nil {
		return fail("%v", err)
	}
	a.Annotation.VectorLength = int32(d.Dim) // at most vector.MaxDim
	a.Element = d.Element
	flba := false
	for _, kv := range settings {
		switch k, v := kv.Key, kv.Value; k {
		case "id":
			n, err := strconv.Atoi(v)
			if err != nil {
				return fail("id=%s is not an integer", v)
			}
			id, err := CheckVectorID(n)
			if err != nil {
				return fail("%v", err)
			}
			a.Annotation.ID = id
		case "layout":
			switch v {
			case "list":
			case "vector-repetition":
				a.Annotation.VectorRepetition = true
			case "flba":
				flba = true
			default:
				return fail("layout=%s: want list, vector-repetition or flba", v)
			}
		default:
			return fail("column %q: unknown setting %q (want id, layout)", d.Column, k)
		}
	}
	if flba {
		// A FIXED_LEN_BYTE_ARRAY cell does not say what its bytes are: the
		// declared element names them, and the leaf must be dim x width long.
		name, _ := a.Element.ParquetElement() // the parser admits only elements that have one
		a.Annotation.Element = name
		a.Element = 0 // Element is checked against list elements; the codec checks the leaf length
		a.FLBA = true
	}
	return a, nil
}

// CheckVectorID checks a VECTOR union id a user gave (a setting, a flag),
// so that a typo is refused before it reaches a footer: ids up to 19 are
// parquet-format's, and the union id is an i16.
func CheckVectorID(id int) (int16, error) {
	if id <= int(footer.FileID) || id > math.MaxInt16 {
		return 0, fmt.Errorf("VECTOR union id %d is not usable: it must be above %d (parquet-format's ids 1-%d) and at most %d",
			id, footer.FileID, footer.FileID, math.MaxInt16)
	}
	return int16(id), nil
}
