package avro_test

import (
	"math/big"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	_ "github.com/coltype-lab/lab/formats/avro"
	"github.com/coltype-lab/lab/registry"
)

func tempPath(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join(t.TempDir(), name)
}

// writeRecords writes rows through the registry's data writer and returns
// its DataFile.
func writeRecords(t *testing.T, path string, schema *iceberg.Schema, rows []*data.Record, props map[string]string) iceberg.DataFile {
	t.Helper()
	b, err := registry.DataWriteBuilder[*data.Record](registry.AVRO, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(schema).SetAll(props).Build()
	if err != nil {
		t.Fatalf("build writer: %v", err)
	}
	for i, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatalf("write row %d: %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return w.DataFile()
}

// readRecords reads every row, copying each so reused containers do not
// alias; configure may set projection, split and the rest.
func readRecords(t *testing.T, path string, configure func(*registry.ReadBuilder[*data.Record])) ([]*data.Record, error) {
	t.Helper()
	b, err := registry.NewReadBuilder[*data.Record](registry.AVRO, registry.LocalInput(path))
	if err != nil {
		t.Fatal(err)
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

func mustRead(t *testing.T, path string, configure func(*registry.ReadBuilder[*data.Record])) []*data.Record {
	t.Helper()
	rows, err := readRecords(t, path, configure)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return rows
}

func assertRows(t *testing.T, got, want []*data.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Errorf("row %d:\n got  %s\n want %s", i, got[i], want[i])
		}
	}
}

// dec builds a decimal from its unscaled digits.
func dec(t *testing.T, unscaled string, scale int) iceberg.Decimal {
	t.Helper()
	n, ok := new(big.Int).SetString(unscaled, 10)
	if !ok {
		t.Fatalf("bad decimal %q", unscaled)
	}
	return iceberg.Decimal{Val: decimal128.FromBigInt(n), Scale: scale}
}

func field(id int, name string, typ iceberg.Type, required bool) iceberg.NestedField {
	return iceberg.NestedField{ID: id, Name: name, Type: typ, Required: required}
}
