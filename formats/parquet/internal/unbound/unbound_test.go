package unbound_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/registry"
)

// Without vectorcol (or filecol) imported, no binding of theirs is
// registered, and each of their properties is refused by the record model,
// naming the key and the package that registers it.
func TestBindingPropertiesRefusedWithoutTheirPackage(t *testing.T) {
	for _, b := range parquet.ColumnBindings() {
		if b.Kind() == footer.KindVector || b.Kind() == footer.KindFile {
			t.Fatalf("binding %s is registered: this test binary must not import its package", b.Kind())
		}
	}
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "emb", Type: iceberg.FixedTypeOf(8), Required: true})
	cases := []struct {
		key, value, pkg string
	}{
		{"write.parquet.vector-columns", "emb:vector<float32,2>", "formats/parquet/vectorcol"},
		{"write.parquet.vector-logical-type-id", "33", "formats/parquet/vectorcol"},
		{"write.parquet.vector-layout.default", "list", "formats/parquet/vectorcol"},
		{"write.parquet.vector-layout.column.emb", "list", "formats/parquet/vectorcol"},
		{"write.parquet.vector-encoding.column.emb", "plain", "formats/parquet/vectorcol"},
		{"write.parquet.stats-enabled.column.emb", "true", "formats/parquet/vectorcol"},
		{"write.parquet.file-columns", "emb", "formats/parquet/filecol"},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.parquet")
			b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
			if err != nil {
				t.Fatal(err)
			}
			w, err := b.Schema(sc).Set(c.key, c.value).Build()
			if err == nil {
				w.Close()
				t.Fatalf("%s=%s was accepted without a binding registered for it", c.key, c.value)
			}
			var unknown *registry.UnknownPropertyError
			if !errors.As(err, &unknown) || unknown.Key != c.key {
				t.Fatalf("error %v: want an UnknownPropertyError naming %s", err, c.key)
			}
			if want := parquet.UnboundPropertyNote(c.pkg); unknown.Why != want {
				t.Fatalf("refused because %q, want %q", unknown.Why, want)
			}
			want := c.key + " is not honoured by the " + parquet.RecordModelName + " model (no column binding is registered for it: import " + c.pkg + ")"
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("error %q does not say %q", err, want)
			}
		})
	}
}

// An unknown key is still refused as no property at all.
func TestUnknownPropertyStillRefused(t *testing.T) {
	sc := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(filepath.Join(t.TempDir(), "f.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Schema(sc).Set("write.parquet.vector-columnz", "emb:vector<float32,2>").Build()
	var unknown *registry.UnknownPropertyError
	if !errors.As(err, &unknown) || unknown.Key != "write.parquet.vector-columnz" || unknown.Why != "it is not a property of this model" {
		t.Fatalf("error %v: want the key refused as no property", err)
	}
}
