package variant

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// WriteColumn writes values as the one VARIANT column name of a Parquet
// file at path through the registry's (PARQUET, *data.Record) model (which
// formats/parquet registers), with the writer properties props (the
// model's shredding settings among them) and its default codec, zstd. A
// zero Value writes a null. Without overwrite an existing file is
// registry.ErrFileExists.
func WriteColumn(path, name string, values []variant.Value, props map[string]string, overwrite bool) error {
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: name, Type: iceberg.VariantType{}})
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		return err
	}
	b.Schema(schema).SetAll(props)
	if overwrite {
		b.Overwrite()
	}
	w, err := b.Build()
	if err != nil {
		return err
	}
	rec := data.NewRecord(schema)
	for _, v := range values {
		if v.Bytes() == nil {
			rec.Set(0, nil)
		} else {
			rec.Set(0, v)
		}
		if err := w.Write(rec); err != nil {
			_ = w.Abort()
			return err
		}
	}
	return w.Close()
}

// Encoding is one way to write a column for ColumnSizes: a name for the
// result and the writer properties.
type Encoding struct {
	Name  string
	Props map[string]string
}

// ColumnSizes writes values with each encoding (WriteColumn, to temporary
// files removed before it returns) and returns the size in bytes of each
// file, by encoding name: what the values cost on disk each way.
func ColumnSizes(name string, values []variant.Value, encodings []Encoding) (map[string]int64, error) {
	tmp, err := os.MkdirTemp("", "lab-variant-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	sizes := map[string]int64{}
	for i, e := range encodings {
		path := filepath.Join(tmp, fmt.Sprintf("%d.parquet", i))
		if err := WriteColumn(path, name, values, e.Props, false); err != nil {
			return nil, fmt.Errorf("write %s estimate: %w", e.Name, err)
		}
		st, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		sizes[e.Name] = st.Size()
	}
	return sizes, nil
}
