package parquet_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	_ "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/registry"
)

func tempFile(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(t.TempDir(), name)
}

// writeRecords writes recs through the registry's data writer and returns
// the DataFile; props are writer properties.
func writeRecords(t testing.TB, path string, schema *iceberg.Schema, props map[string]string, recs ...*data.Record) iceberg.DataFile {
	t.Helper()
	df, err := tryWriteRecords(path, schema, props, recs...)
	if err != nil {
		t.Fatal(err)
	}
	return df
}

// tryWriteRecords is writeRecords for callers that cannot stop the test,
// such as goroutines.
func tryWriteRecords(path string, schema *iceberg.Schema, props map[string]string, recs ...*data.Record) (iceberg.DataFile, error) {
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		return nil, err
	}
	w, err := b.Schema(schema).SetAll(props).Build()
	if err != nil {
		return nil, err
	}
	for i, r := range recs {
		if err := w.Write(r); err != nil {
			return nil, fmt.Errorf("write record %d: %w", i, err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return w.DataFile(), nil
}

// readRecords reads every record, copying each so reused containers do not
// alias.
func readRecords(t testing.TB, path string, configure func(*registry.ReadBuilder[*data.Record])) []*data.Record {
	t.Helper()
	recs, err := tryReadRecords(path, configure)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func tryReadRecords(path string, configure func(*registry.ReadBuilder[*data.Record])) ([]*data.Record, error) {
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, registry.LocalInput(path))
	if err != nil {
		return nil, err
	}
	if configure != nil {
		configure(b)
	}
	r, err := b.Build()
	if err != nil {
		return nil, err
	}
	return registry.ReadAll(r, (*data.Record).Copy)
}

func assertRecords(t testing.TB, got, want []*data.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d\ngot:  %v\nwant: %v", len(got), len(want), got, want)
	}
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Errorf("record %d:\ngot:  %s\nwant: %s", i, got[i], want[i])
		}
	}
}

func dec(t testing.TB, s string, precision, scale int) iceberg.Decimal {
	t.Helper()
	n, err := decimal128.FromString(s, int32(precision), int32(scale))
	if err != nil {
		t.Fatalf("decimal %s: %v", s, err)
	}
	return iceberg.Decimal{Val: n, Scale: scale}
}

func field(id int, name string, typ iceberg.Type, required bool) iceberg.NestedField {
	return iceberg.NestedField{ID: id, Name: name, Type: typ, Required: required}
}

func opt(id int, name string, typ iceberg.Type) iceberg.NestedField {
	return field(id, name, typ, false)
}

func req(id int, name string, typ iceberg.Type) iceberg.NestedField {
	return field(id, name, typ, true)
}

func structOf(fields ...iceberg.NestedField) *iceberg.StructType {
	return &iceberg.StructType{FieldList: fields}
}

func rec(st *iceberg.StructType, values ...any) *data.Record {
	r := data.NewStructRecord(st)
	for i, v := range values {
		r.Set(i, v)
	}
	return r
}
