package jsonrow

import (
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/variant"
)

// TestParseVariantDepth checks that JSON nested past encoding/json's limit
// is refused as the text is scanned, the same way for lab variant analyze's
// lines (ParseVariant) as for lab write's rows (DecodeJSON), and that values
// within it parse as arrow-go parses them.
func TestParseVariantDepth(t *testing.T) {
	const depth = 400_000
	const want = "not JSON at offset 10000: invalid character '[' exceeded max depth"
	deep := []byte(strings.Repeat("[", depth) + strings.Repeat("]", depth))

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ParseVariant(deep)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("ParseVariant of %d levels: %v, want an error containing %q", depth, err, want)
	}
	// Refused before arrow-go's parser, which spends minutes on the line.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("ParseVariant of %d levels allocated %d bytes", depth, alloc)
	}

	c := codecFor(t, "v:variant")
	if _, err := c.DecodeJSON([]byte(`{"v":` + string(deep) + `}`)); err == nil || !strings.Contains(err.Error(), "exceeded max depth") {
		t.Errorf("DecodeJSON of %d levels: %v", depth, err)
	}

	for _, text := range []string{
		`{"a":[1,2.5,"x",null,true],"b":{"c":{}}}`,
		`"s"`,
		strings.Repeat("[", 1000) + strings.Repeat("]", 1000),
	} {
		got, err := ParseVariant([]byte(text))
		if err != nil {
			t.Fatalf("ParseVariant(%.40s): %v", text, err)
		}
		wantV, err := variant.ParseJSONBytes([]byte(text), false)
		if err != nil {
			t.Fatal(err)
		}
		if string(got.Bytes()) != string(wantV.Bytes()) || string(got.Metadata().Bytes()) != string(wantV.Metadata().Bytes()) {
			t.Errorf("ParseVariant(%.40s) differs from arrow-go's parse", text)
		}
	}
	if _, err := ParseVariant([]byte(`{"a":`)); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("truncated JSON: %v", err)
	}
}
