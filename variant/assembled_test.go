package variant_test

import (
	"reflect"
	"testing"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"

	"github.com/coltype-lab/lab/variant"
)

// TestAssembledMatchesNewWithMetadata pins Assembled to arrow-go's Value
// layout: with the pinned arrow-go it must build exactly the Value that
// NewWithMetadata builds from the same bytes.
func TestAssembledMatchesNewWithMetadata(t *testing.T) {
	for _, text := range []string{
		`null`, `7`, `"a string longer than a short string's sixty-three bytes, so a long string"`,
		`{"b": [1, 2.5, {"c": null}], "a": "x"}`, `[]`, `{}`,
	} {
		parsed, err := pvariant.ParseJSON(text, false)
		if err != nil {
			t.Fatal(err)
		}
		want, err := pvariant.NewWithMetadata(parsed.Metadata(), parsed.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		got, ok := variant.Assembled(parsed.Metadata(), parsed.Bytes())
		if !ok {
			t.Fatalf("%s: Assembled refused; has arrow-go's variant.Value layout changed?", text)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Assembled built %#v, NewWithMetadata %#v", text, got, want)
		}
		if err := variant.Equal(got, want); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if got.String() != want.String() {
			t.Fatalf("%s: reads back as %s, want %s", text, got, want)
		}
	}
	if _, ok := variant.Assembled(pvariant.NullValue.Metadata(), nil); ok {
		t.Fatal("Assembled accepted an empty value")
	}
}
