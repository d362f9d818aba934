package parquet_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"

	_ "github.com/coltype-lab/lab/formats/parquet/arrow" // registers (PARQUET, arrow.RecordBatch)
	"github.com/coltype-lab/lab/formats/parquet/filecol"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/registry"
)

// A writer property under write.parquet. that a model does not honour is
// refused naming the key (write.parquet.bogus=1 used to be ignored, and so
// did write.parquet.page-row-limit on the record model), and nothing is
// left at the path; keys outside the namespace are table properties and
// pass.
func TestUnknownWritePropertiesAreRefused(t *testing.T) {
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	for _, tc := range []struct {
		key, value, want string
	}{
		{"write.parquet.bogus", "1", "it is not a property of this model"},
		{"write.parquet.page-row-limit", "100", "the parquet-arrow model honours it"},
		{"write.parquet.bloom-filter-enabled.column.id", "true", "bloom filter properties are not implemented"},
		{"write.delete.parquet.compression-codec", "zstd", "delete writers take the write.parquet.* properties"},
	} {
		t.Run(tc.key, func(t *testing.T) {
			path := tempFile(t, "refused.parquet")
			_, err := tryWriteRecords(path, schema, map[string]string{tc.key: tc.value})
			var up *registry.UnknownPropertyError
			if !errors.As(err, &up) || up.Key != tc.key || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want an UnknownPropertyError naming %s, the file, and %q", err, tc.key, tc.want)
			}
			if _, serr := os.Stat(path); !os.IsNotExist(serr) {
				t.Fatalf("the refused write left %s behind", path)
			}
		})
	}
	// Table properties outside the namespace, and the arrow model's own keys
	// on the arrow model, pass.
	path := tempFile(t, "ok.parquet")
	if _, err := tryWriteRecords(path, schema, map[string]string{"write.target-file-size-bytes": "1000", "write.parquet.row-group-limit": "10"}); err != nil {
		t.Fatal(err)
	}
	b, err := registry.DataWriteBuilder[arrow.RecordBatch](registry.PARQUET, registry.LocalOutput(tempFile(t, "arrow.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(schema).Set("write.parquet.page-row-limit", "100").Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err = registry.DataWriteBuilder[arrow.RecordBatch](registry.PARQUET, registry.LocalOutput(tempFile(t, "arrow2.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	var up *registry.UnknownPropertyError
	if _, err := b.Schema(schema).Set("write.parquet.shred-variants", "true").Build(); !errors.As(err, &up) || !strings.Contains(err.Error(), "the parquet-generic model honours it") {
		t.Fatalf("arrow model with shred-variants: err = %v", err)
	}
}

// The refusal lists each property a model honours once, the bindings' with
// them: VECTOR's from vectorcol (a PageBinding: its layout keys are the
// record model's only), which the arrow model also names itself.
func TestRefusalListsTheBindingsPropertiesOnce(t *testing.T) {
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	check := func(t *testing.T, err error, want, unwanted []string) {
		t.Helper()
		var up *registry.UnknownPropertyError
		if !errors.As(err, &up) {
			t.Fatalf("err = %v, want an UnknownPropertyError", err)
		}
		seen := map[string]bool{}
		for _, k := range up.Known {
			if seen[k] {
				t.Errorf("%s is listed twice in %v", k, up.Known)
			}
			seen[k] = true
		}
		for _, k := range want {
			if !seen[k] {
				t.Errorf("%s is missing from %v", k, up.Known)
			}
		}
		for _, k := range unwanted {
			if seen[k] {
				t.Errorf("%s is listed in %v", k, up.Known)
			}
		}
	}
	vectorKeys := []string{vectorcol.PropColumns, vectorcol.PropLogicalTypeID}
	layoutKeys := []string{vectorcol.PropLayoutDefault, vectorcol.PropLayoutColumn + "<column>", vectorcol.PropEncodingDefault,
		vectorcol.PropEncodingColumn + "<column>", vectorcol.PropStatsEnabledColumn + "<column>"}
	_, err := tryWriteRecords(tempFile(t, "r.parquet"), schema, map[string]string{"write.parquet.bogus": "1"})
	check(t, err, append(append([]string{filecol.PropColumns}, vectorKeys...), layoutKeys...), nil)

	b, err := registry.DataWriteBuilder[arrow.RecordBatch](registry.PARQUET, registry.LocalOutput(tempFile(t, "a.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Schema(schema).Set("write.parquet.bogus", "1").Build()
	check(t, err, append([]string{filecol.PropColumns}, vectorKeys...), layoutKeys)
}
