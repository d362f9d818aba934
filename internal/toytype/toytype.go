// Package toytype is a column type that exists to prove the plug-in path:
// UNIT_INTERVAL, a DOUBLE leaf whose values lie in [0, 1]. It is one package
// and a blank import, as every new column type should be (DESIGN.md,
// "Layout"): it registers its footer logical type with footer, its column
// binding with formats/parquet, its value-level entry (schema name,
// property, JSON check, inspect formatter) with data/coltype and its
// annotate request (score:unit_interval) with formats/parquet/annotate/request,
// and none of those (nor data/schemaspec, data/jsonrow or
// formats/parquet/inspect, which read the registries) imports it. Only
// tests import it; the lab writes no UNIT_INTERVAL files.
package toytype

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data/coltype"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/annotate/request"
	"github.com/coltype-lab/lab/formats/parquet/footer"
)

const (
	// Kind is the footer annotation's name.
	Kind footer.Kind = "UNIT_INTERVAL"
	// ID is its LogicalType union id, one no proposal uses.
	ID int16 = 40
	// PropColumns declares UNIT_INTERVAL columns: top-level double columns,
	// comma-separated.
	PropColumns = "write.parquet.unit-interval-columns"
)

// Name is the type's name in schemas ("score:unit_interval").
const Name = "unit_interval"

func init() {
	footer.RegisterLogicalType(footer.ExtensionSpec{Kind: Kind, ID: ID, Place: place})
	parquet.RegisterColumnBinding(binding{})
	coltype.RegisterPrimitive(coltype.Primitive{
		Name: Name, Property: PropColumns, Annotation: string(Kind),
		Iceberg: iceberg.PrimitiveTypes.Float64, Check: check, Format: percent,
	})
	request.Register(request.Type{
		Name: Name, Syntax: "COLUMN:" + Name,
		Usage: "UNIT_INTERVAL (union id " + strconv.Itoa(int(ID)) + ") on a DOUBLE leaf; only the footer is read,\nso values outside [0, 1] go unnoticed.",
		Parse: parseAnnotateRequest,
	})
}

func parseAnnotateRequest(spec string) (request.Request, error) {
	path, err := request.ParsePlain(spec, Name)
	if err != nil {
		return request.Request{}, err
	}
	return request.Request{Name: spec, Path: path, Annotation: footer.Annotation{Kind: Kind}}, nil
}

// check refuses what is not a UNIT_INTERVAL value: on write (the binding)
// and in JSON rows (the codec) alike.
func check(v any) error {
	x, ok := v.(float64)
	if !ok {
		return fmt.Errorf("value %v (%T) is not a double", v, v)
	}
	if math.IsNaN(x) || x < 0 || x > 1 {
		return fmt.Errorf("value %v is outside UNIT_INTERVAL's [0, 1]", x)
	}
	return nil
}

// percent shows a value as a percentage, "25%", so that a test can tell the
// type's formatter from the double's.
func percent(v any) string {
	x, ok := v.(float64)
	if !ok {
		return fmt.Sprint(v)
	}
	return strconv.FormatFloat(x*100, 'g', 4, 64) + "%"
}

// place allows the annotation on DOUBLE leaves without another logical type.
func place(meta *footer.FileMetaData, i int) error {
	el := &meta.Schema[i]
	if el.IsGroup() || el.Type.V != format.Double {
		return errors.New("annotates DOUBLE leaves only")
	}
	return nil
}

type binding struct{}

func (binding) Kind() footer.Kind { return Kind }
func (binding) Property() string  { return PropColumns }

func (binding) Bind(f iceberg.NestedField) (parquet.ValueCheck, error) {
	if !f.Type.Equals(iceberg.PrimitiveTypes.Float64) {
		return nil, fmt.Errorf("has type %s, a UNIT_INTERVAL column is a double", f.Type)
	}
	return check, nil
}

func (binding) Recognize(t iceberg.Type) error {
	if !t.Equals(iceberg.PrimitiveTypes.Float64) {
		return fmt.Errorf("annotated UNIT_INTERVAL but read as %s", t)
	}
	return nil
}
