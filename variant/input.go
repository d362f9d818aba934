package variant

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/jsonrow"
	"github.com/coltype-lab/lab/internal/safeopen"
	"github.com/coltype-lab/lab/registry"
)

// NoVariantColumnError is a Parquet file with no top-level VARIANT column,
// read without naming one.
type NoVariantColumnError struct{ Path string }

func (e *NoVariantColumnError) Error() string { return e.Path + " has no VARIANT column" }

// FormatError is an input that starts with the magic of a format other
// than Parquet, which ReadInput does not read values from.
type FormatError struct {
	Path   string
	Format registry.FileFormat
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s starts with the magic of format %s; variant values are read from Parquet or JSON Lines", e.Path, e.Format)
}

// ReadInput reads the variant values of the file at path, one per row, a
// zero variant.Value for a SQL NULL, and returns the column it read. A
// file the registry recognises as Parquet by its magic is read through
// the registry's (PARQUET, *data.Record) model, with its footer checks and
// bounds on hostile input (formats/parquet registers it: a program that
// does not import that package gets the registry's not-registered error);
// column names a top-level VARIANT column, and empty picks the first one
// (a *NoVariantColumnError when there is none). Any input without a known
// magic is read as JSON Lines (jsonrow.ReadVariantLines, column the member
// holding the value, empty for whole lines); a known non-Parquet magic is
// a *FormatError. Errors name the path, and for JSON Lines the line, as
// path:line.
func ReadInput(path, column string) ([]variant.Value, string, error) {
	// Opened here to be read twice (the magic, then from the start), so it
	// must be a regular file; a FIFO would block os.Open.
	f, err := safeopen.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	switch format, err := registry.DetectFormat(f); {
	case errors.Is(err, registry.ErrUnknownFormat):
	case err != nil:
		return nil, "", fmt.Errorf("%s: %w", path, err)
	case format == registry.PARQUET:
		return readParquetValues(path, column)
	default:
		return nil, "", &FormatError{Path: path, Format: format}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	var values []variant.Value
	err = jsonrow.ReadVariantLines(f, column, func(_ int, v variant.Value) error {
		values = append(values, v)
		return nil
	})
	var le *jsonrow.LineError
	if errors.As(err, &le) {
		return nil, "", fmt.Errorf("%s:%d: %w", path, le.Line, le.Err)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return values, column, nil
}

// readParquetValues reads one top-level VARIANT column of a Parquet file
// through the registry, projecting that column alone.
func readParquetValues(path, column string) ([]variant.Value, string, error) {
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, registry.LocalInput(path))
	if err != nil {
		return nil, "", err
	}
	schema, err := b.FileSchema()
	if err != nil {
		return nil, "", err
	}
	field, err := variantField(path, schema, column)
	if err != nil {
		return nil, "", err
	}
	r, err := b.Project(iceberg.NewSchema(0, field)).Build()
	if err != nil {
		return nil, "", err
	}
	defer r.Close()
	var values []variant.Value
	for row := 0; ; row++ {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// The error names the file and column; the record model decodes
			// ahead, so the row it failed at may be after the rows returned.
			return nil, "", fmt.Errorf("%w (%d rows read before the error)", err, row)
		}
		switch v := rec.Get(0).(type) {
		case nil:
			values = append(values, variant.Value{})
		case variant.Value:
			values = append(values, v)
		default:
			return nil, "", fmt.Errorf("%s: column %s, row %d: read a %T, not a variant value", path, field.Name, row, v)
		}
	}
	if err := r.Close(); err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return values, field.Name, nil
}

// variantField is the top-level VARIANT field named column, or with column
// empty the first one.
func variantField(path string, schema *iceberg.Schema, column string) (iceberg.NestedField, error) {
	for _, f := range schema.Fields() {
		_, isVariant := f.Type.(iceberg.VariantType)
		switch {
		case column == "" && isVariant, column != "" && f.Name == column && isVariant:
			return f, nil
		case column != "" && f.Name == column:
			return f, fmt.Errorf("%s: column %q is %s, not variant", path, column, f.Type)
		}
	}
	if column == "" {
		return iceberg.NestedField{}, &NoVariantColumnError{Path: path}
	}
	return iceberg.NestedField{}, fmt.Errorf("%s: variant column %q not found", path, column)
}
