// Package specread reads the schema spec (data/schemaspec) of a data file:
// its Iceberg schema with the columns that are FILE and VECTOR. Each format
// records those differently (Parquet in footer annotations, Avro in header
// keys lab write leaves), and a reader of rows, of schemas or of a column
// needs the same answer for both, so the per-format knowledge lives here.
package specread

import (
	"errors"
	"fmt"
	"strings"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/coltype"
	"github.com/coltype-lab/lab/data/schemaspec"
	"github.com/coltype-lab/lab/formats/avro"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/file"
	"github.com/coltype-lab/lab/types/vector"
)

// The Avro header keys that declare FILE and VECTOR columns, holding the
// values of their writer properties (write.parquet.file-columns,
// write.parquet.vector-columns): an Avro schema has no logical type for
// either, so the writer leaves the declaration beside it and Read takes it
// back. Every registered column type has its key (AvroHeaderKey).
const (
	AvroFileColumnsKey   = "lab.file-columns"
	AvroVectorColumnsKey = "lab.vector-columns"
)

// AvroHeaderKey is the Avro header key that holds the value of a column
// type's writer property: "lab." and the property's name after
// "write.parquet." (write.parquet.vector-columns: lab.vector-columns).
func AvroHeaderKey(property string) string {
	return "lab." + strings.TrimPrefix(property, "write.parquet.")
}

// AvroHeader is the Avro header entries that declare spec's columns of
// registered types: AvroHeaderKey(property) for each of spec.Properties.
func AvroHeader(spec *schemaspec.Spec) map[string]string {
	out := map[string]string{}
	for k, v := range spec.Properties() {
		out[AvroHeaderKey(k)] = v
	}
	return out
}

// ErrUnsupportedFormat is a format Read has no spec for (ORC, PUFFIN, ...).
var ErrUnsupportedFormat = errors.New("no schema spec for this format")

// Read is the spec of the data file in, of the given format; name is the
// file as the user named it, for errors. mapping, when not nil, gives field
// ids to a file without them, as for the read that follows. A file that does
// not read as its format fails with "NAME is not a readable Parquet (Avro)
// file".
func Read(in registry.InputFile, name string, format registry.FileFormat, mapping iceberg.NameMapping) (*schemaspec.Spec, error) {
	switch format {
	case registry.PARQUET:
		anns, schema, err := ParquetSchema(in, name, mapping)
		if err != nil {
			return nil, err
		}
		return Parquet(anns, schema, name)
	case registry.AVRO:
		return readAvro(in, name, mapping)
	}
	return nil, fmt.Errorf("%s: %s: %w", name, format, ErrUnsupportedFormat)
}

func readAvro(in registry.InputFile, name string, mapping iceberg.NameMapping) (*schemaspec.Spec, error) {
	meta, err := avro.Metadata(in)
	if err != nil {
		return nil, fmt.Errorf("%s is not a readable Avro file: %w", name, err)
	}
	var schema *iceberg.Schema
	if raw, ok := meta[avro.IcebergSchemaKey]; ok && mapping == nil {
		if schema, err = schemaspec.IcebergSchemaFromJSON([]byte(raw)); err != nil {
			return nil, fmt.Errorf("%s: header %s: %w", name, avro.IcebergSchemaKey, err)
		}
	} else {
		// Another writer's file (or one read through a mapping): the
		// schema the reader derives from the file's Avro schema.
		if schema, err = readerSchema(in, name, registry.AVRO, mapping); err != nil {
			return nil, err
		}
	}
	spec := &schemaspec.Spec{Schema: schema}
	props := map[string]string{}
	for _, t := range coltype.Types() {
		props[t.Property] = meta[AvroHeaderKey(t.Property)]
	}
	if err := spec.Declare(props); err != nil {
		return nil, fmt.Errorf("%s: header: %w", name, err)
	}
	return spec, nil
}

// ParquetSchema is a Parquet file's footer annotations and the schema a
// reader without projection reads it with. A footer that does not read
// means the file is not a readable Parquet file.
func ParquetSchema(in registry.InputFile, name string, mapping iceberg.NameMapping) ([]footer.Annotation, *iceberg.Schema, error) {
	anns, err := parquet.FileAnnotations(in)
	if err != nil {
		return nil, nil, fmt.Errorf("%s is not a readable Parquet file: %w", name, err)
	}
	schema, err := readerSchema(in, name, registry.PARQUET, mapping)
	if err != nil {
		return nil, nil, err
	}
	return anns, schema, nil
}

// OpenParquet builds b's reader of the Parquet file in, without a
// projection, and returns it with the file's spec (Read's), taking the
// annotations from the reader too: the file is opened once, not twice,
// and with a footer of 100,000 row groups every open costs parquet-go a
// full decode. A reader that fails is told apart as ParquetSchema tells
// it. The caller closes the reader.
func OpenParquet(in registry.InputFile, name string, b *registry.ReadBuilder[*data.Record]) (*schemaspec.Spec, registry.Reader[*data.Record], error) {
	r, err := b.Build()
	if err != nil {
		if _, ferr := parquet.FileAnnotations(in); ferr != nil {
			return nil, nil, fmt.Errorf("%s is not a readable Parquet file: %w", name, ferr)
		}
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	sr, ok := r.(interface {
		registry.SchemaReader
		Annotations() []footer.Annotation
	})
	if !ok {
		r.Close()
		return nil, nil, fmt.Errorf("%s: the Parquet reader does not report the file's schema and annotations", name)
	}
	spec, err := Parquet(sr.Annotations(), sr.Schema(), name)
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	return spec, r, nil
}

// Parquet is a Parquet file's spec: its schema, with the top-level columns
// its annotations make FILE and VECTOR. Nested annotations are left out:
// those columns read as their storage type.
func Parquet(anns []footer.Annotation, schema *iceberg.Schema, name string) (*schemaspec.Spec, error) {
	var decls []coltype.Decl
	for _, a := range anns {
		if len(a.Path) != 1 {
			continue
		}
		switch a.Kind {
		case footer.KindFile:
			if f, ok := schema.FindFieldByName(a.Path[0]); ok {
				d, err := file.Type.FromField(f)
				if err != nil {
					return nil, fmt.Errorf("%s: FILE annotation: column %q (field id %d) %w", name, f.Name, f.ID, err)
				}
				decls = append(decls, d)
			} else {
				return nil, fmt.Errorf("%s: FILE annotation: %q is not a top-level column of the schema", name, a.Path[0])
			}
		case footer.KindVector, footer.KindFixedSizeList:
			if v, ok := annotatedVector(a, schema); ok {
				decls = append(decls, v)
			}
		}
	}
	spec, err := schemaspec.FromSchema(schema, decls)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return spec, nil
}

// annotatedVector is the VECTOR declaration of an annotated top-level
// column that reads as fixed[dim × width] (a list<float> VECTOR column
// reads as a list and prints as one). The annotation names the element:
// FLOAT, DOUBLE, FLOAT16 or INT8 on a FIXED_LEN_BYTE_ARRAY cell, the leaf's
// physical type in the list and vector-repetition layouts (INT32 for int8,
// FIXED_LEN_BYTE_ARRAY for float16), which the cell's width tells apart.
func annotatedVector(a footer.Annotation, schema *iceberg.Schema) (vector.Declaration, bool) {
	f, ok := schema.FindFieldByName(a.Path[0])
	if !ok || a.VectorLength <= 0 {
		return vector.Declaration{}, false
	}
	ft, ok := f.Type.(iceberg.FixedType)
	if !ok || ft.Len()%int(a.VectorLength) != 0 {
		return vector.Declaration{}, false
	}
	width := ft.Len() / int(a.VectorLength)
	et, ok := vectorcol.ElementFromParquetName(a.Element)
	if !ok {
		switch {
		case a.Element == "INT32" && width == 1:
			et, ok = vector.Int8, true
		case a.Element == "FIXED_LEN_BYTE_ARRAY" && width == 2:
			et, ok = vector.Float16, true
		}
	}
	if !ok || et.Width() != width {
		return vector.Declaration{}, false
	}
	return vector.Declaration{Column: a.Path[0], Element: et, Dim: int(a.VectorLength)}, true
}

// readerSchema is the schema a reader without projection reads the file
// with: its ids, the mapping's, or ids derived from its own schema.
func readerSchema(in registry.InputFile, name string, format registry.FileFormat, mapping iceberg.NameMapping) (*iceberg.Schema, error) {
	b, err := registry.NewReadBuilder[*data.Record](format, in)
	if err != nil {
		return nil, err
	}
	if mapping != nil {
		b.WithNameMapping(mapping)
	}
	s, err := b.FileSchema()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}
