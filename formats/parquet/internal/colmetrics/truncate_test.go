package colmetrics

import (
	"bytes"
	"maps"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

func TestTruncateString(t *testing.T) {
	for _, tc := range []struct {
		in, lower, upper string
		n                int
		noUpper          bool
	}{
		{in: "abcdef", n: 2, lower: "ab", upper: "ac"},
		{in: "ab", n: 2, lower: "ab", upper: "ab"},
		{in: "a", n: 2, lower: "a", upper: "a"},
		{in: "", n: 1, lower: "", upper: ""},
		{in: "héllo", n: 2, lower: "hé", upper: "hê"}, // U+00E9 + 1
		{in: "日本語", n: 2, lower: "日本", upper: "日札"},
		{in: "a\U0010FFFFxyz", n: 2, lower: "a\U0010FFFF", upper: "b"},
		{in: "\U0010FFFF\U0010FFFFz", n: 2, lower: "\U0010FFFF\U0010FFFF", noUpper: true},
		{in: "a\uD7FFz", n: 2, lower: "a\uD7FF", upper: "a\uE000"},
		{in: "a\uFFFFz", n: 2, lower: "a\uFFFF", upper: "a\U00010000"},
		{in: "abc\U0010FFFF", n: 3, lower: "abc", upper: "abd"},
	} {
		lower := truncateStringLower([]byte(tc.in), tc.n)
		if string(lower) != tc.lower {
			t.Errorf("truncateStringLower(%q, %d) = %q, want %q", tc.in, tc.n, lower, tc.lower)
		}
		upper, ok := truncateStringUpper([]byte(tc.in), tc.n)
		if ok == tc.noUpper || string(upper) != tc.upper {
			t.Errorf("truncateStringUpper(%q, %d) = %q, %v; want %q, %v", tc.in, tc.n, upper, ok, tc.upper, !tc.noUpper)
		}
	}
}

func TestTruncateBinary(t *testing.T) {
	for _, tc := range []struct {
		in, lower, upper []byte
		n                int
		noUpper          bool
	}{
		{in: []byte{1, 2, 3}, n: 2, lower: []byte{1, 2}, upper: []byte{1, 3}},
		{in: []byte{1, 2}, n: 2, lower: []byte{1, 2}, upper: []byte{1, 2}},
		{in: []byte{0xFF}, n: 2, lower: []byte{0xFF}, upper: []byte{0xFF}},
		{in: []byte{1, 0xFF, 5}, n: 2, lower: []byte{1, 0xFF}, upper: []byte{2}},
		{in: []byte{0xFF, 0xFF, 0}, n: 2, lower: []byte{0xFF, 0xFF}, noUpper: true},
		{in: []byte{0, 0xFF, 0xFF, 0xFF}, n: 3, lower: []byte{0, 0xFF, 0xFF}, upper: []byte{1}},
	} {
		lower := truncateBinaryLower(tc.in, tc.n)
		if !bytes.Equal(lower, tc.lower) {
			t.Errorf("truncateBinaryLower(% x, %d) = % x, want % x", tc.in, tc.n, lower, tc.lower)
		}
		upper, ok := truncateBinaryUpper(tc.in, tc.n)
		if ok == tc.noUpper || !bytes.Equal(upper, tc.upper) {
			t.Errorf("truncateBinaryUpper(% x, %d) = % x, %v; want % x, %v", tc.in, tc.n, upper, ok, tc.upper, !tc.noUpper)
		}
	}
}

// Bytewise order of UTF-8 is code point order, which Iceberg Java's
// CharSequence comparator also gives (it ranks surrogate pairs above the
// rest of the BMP); plain UTF-16 order would put U+10000 before U+E000.
func TestStringOrderIsCodePointOrder(t *testing.T) {
	schema := iceberg.NewSchema(0, opt(1, "s", iceberg.PrimitiveTypes.String))
	c, err := NewCollector(schema, registry.MetricsConfig{Default: registry.MetricsMode{Kind: registry.MetricsFull}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"\uE000", "\U00010000", "\uFFFF"} {
		c.Add(data.Of(schema, s))
	}
	got := c.Metrics(&format.FileMetaData{})
	checkBytes(t, "LowerBounds", got.LowerBounds, map[int][]byte{1: []byte("\uE000")})
	checkBytes(t, "UpperBounds", got.UpperBounds, map[int][]byte{1: []byte("\U00010000")})
}

func TestLeafFieldIDs(t *testing.T) {
	leaf := func(name string, id int32) format.SchemaElement {
		return format.SchemaElement{Name: name, Type: thrift.New(format.Int32), FieldID: id}
	}
	group := func(name string, children int32, id int32) format.SchemaElement {
		return format.SchemaElement{Name: name, NumChildren: thrift.New(children), FieldID: id}
	}
	for _, tc := range []struct {
		name  string
		elems []format.SchemaElement
		want  map[string]int
	}{
		{"empty", nil, map[string]int{}},
		{"flat and nested", []format.SchemaElement{
			group("root", 3, 0), leaf("a", 1), group("g", 2, 2), leaf("b", 3), leaf("c", 0), leaf("d", 4),
		}, map[string]int{"a": 1, "g\x00b": 3, "d": 4}},
		{"duplicate ids are dropped", []format.SchemaElement{
			group("root", 3, 0), leaf("a", 7), leaf("b", 7), leaf("c", 8),
		}, map[string]int{"c": 8}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := newFooterSchema(tc.elems)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.leafFieldIDs(); !maps.Equal(got, tc.want) {
				t.Errorf("leafFieldIDs = %v, want %v", got, tc.want)
			}
		})
	}
	// Lists that are no tree: footerschema_test.go.
}
