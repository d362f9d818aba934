package main

import (
	"slices"
	"testing"

	"github.com/coltype-lab/lab/data/coltype"
	"github.com/coltype-lab/lab/formats/avro"
	"github.com/coltype-lab/lab/formats/parquet"
)

// --property completes every key the registries know, once each: each
// column binding's, each value-level type's, beside the Parquet and Avro
// models' own, so a new column type needs no change to lab write.
func TestWritePropertyKeys(t *testing.T) {
	keys := writePropertyKeys()
	var want []string
	for _, b := range parquet.ColumnBindings() {
		want = append(want, b.Property())
		if pb, ok := b.(parquet.PageBinding); ok {
			want = append(want, pb.Properties()...)
		}
	}
	if len(want) < 2 {
		t.Fatalf("the lab binary registers %d binding keys; FILE and VECTOR are missing", len(want))
	}
	for _, ct := range coltype.Types() {
		want = append(want, ct.Property)
	}
	want = append(want, parquet.PropCompressionCodec, parquet.PropShredVariants, avro.CompressionCodecKey, avro.CompressionLevelKey)
	for _, k := range want {
		if !slices.Contains(keys, k) {
			t.Errorf("--property completion lacks %s: %v", k, keys)
		}
	}
	if c := slices.Compact(slices.Sorted(slices.Values(keys))); len(c) != len(keys) {
		t.Errorf("--property completion repeats keys: %v", keys)
	}
}
