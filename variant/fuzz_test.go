package variant

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/variant"
)

// nestedArrays encodes depth nested single-element arrays around null.
func nestedArrays(depth int) []byte {
	v := []byte{0}
	for range depth {
		hdr := []byte{0x0F, 1, 0, 0, 0, 0, 0, 0, 0, 0} // array, 4-byte offsets, 1 element
		binary.LittleEndian.PutUint32(hdr[6:], uint32(len(v)))
		v = append(hdr, v...)
	}
	return v
}

var emptyMeta = []byte{0x01, 0, 0}

// seedVariants adds the parquet-testing vectors (when present) and
// hand-made hostile inputs to a fuzz corpus.
func seedVariants(f *testing.F) {
	if dir := os.Getenv("PARQUET_TEST_DATA"); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "variant", "*.metadata"))
		for _, mf := range files {
			meta, _ := os.ReadFile(mf)
			value, _ := os.ReadFile(strings.TrimSuffix(mf, ".metadata") + ".value")
			f.Add(meta, value)
		}
	}
	objMeta := []byte{0x11, 2, 0, 1, 2, 'a', 'b'}                    // sorted dictionary {a, b}
	f.Add(objMeta, []byte{0x02, 2, 0, 1, 0, 1, 2, 0x0C, 1, 0x0C, 2}) // {"a":1,"b":2}
	f.Add(objMeta, []byte{0x02, 2, 1, 0, 0, 1, 2, 0x0C, 1, 0x0C, 2}) // unsorted keys
	f.Add(objMeta, []byte{0x02, 2, 0, 0, 0, 1, 2, 0x0C, 1, 0x0C, 2}) // duplicate keys
	f.Add(objMeta, []byte{0x02, 1, 7, 0, 1, 0x00})                   // field id past the dictionary
	f.Add(objMeta, []byte{0x02, 1, 0, 0, 200, 0x00})                 // offset past the end
	f.Add([]byte{0x11, 2, 0, 1, 2, 'b', 'a'}, []byte{0})             // sorted bit on unsorted keys
	f.Add([]byte{0x02, 0, 0}, []byte{0})                             // metadata version 2
	f.Add(emptyMeta, []byte{0x03, 3, 0, 1})                          // truncated array
	f.Add(emptyMeta, []byte{0x14, 1, 2})                             // truncated int32
	f.Add(emptyMeta, nestedArrays(1100))                             // deeper than arrow-go's limit
	f.Add(emptyMeta, nestedArrays(60))                               // deeper than the analyzer's
}

// FuzzDecodeVariant: untrusted bytes either fail to decode or give a value
// that survives analysis, shredding and reconstruction unchanged.
func FuzzDecodeVariant(f *testing.F) {
	seedVariants(f)
	f.Fuzz(func(t *testing.T, meta, value []byte) {
		v, err := Decode(meta, value)
		if err != nil {
			return
		}
		if err := Equal(v, v); err != nil {
			t.Fatal(err)
		}
		layout, _ := Analyze([]variant.Value{v, v}, DefaultAnalyzerConfig())
		row, err := Shred(layout, v)
		if err != nil {
			t.Fatalf("shred: %v", err)
		}
		back, err := Reconstruct(layout, row)
		if err != nil {
			t.Fatalf("reconstruct: %v", err)
		}
		if err := Equal(back, v); err != nil {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// FuzzReconstruct: untrusted residual bytes in every position of a
// shredded row give an error or a valid value, never a panic.
func FuzzReconstruct(f *testing.F) {
	seedVariants(f)
	layout := &Layout{Kind: Object, Fields: []Field{
		{Name: "a", Layout: &Layout{Kind: Primitive, Type: variant.Int32}},
		{Name: "b", Layout: &Layout{Kind: Array, Element: &Layout{Kind: Primitive, Type: variant.String}}},
	}}
	f.Fuzz(func(t *testing.T, meta, value []byte) {
		str, _ := variant.Of("s")
		rows := []Row{
			{Metadata: meta, Shredded: Shredded{Value: value}},
			{Metadata: meta, Shredded: Shredded{Value: value, HasTyped: true, Fields: make([]Shredded, 2)}},
			{Metadata: meta, Shredded: Shredded{HasTyped: true, Fields: []Shredded{{Value: value}, {HasTyped: true, Elements: []Shredded{{Value: value}, {HasTyped: true, Primitive: str}}}}}},
		}
		for _, r := range rows {
			v, err := Reconstruct(layout, r)
			if err != nil {
				continue
			}
			if _, err := Decode(v.Metadata().Bytes(), v.Bytes()); err != nil {
				t.Fatalf("reconstructed value does not decode: %v", err)
			}
		}
	})
}

func TestDecodeHostile(t *testing.T) {
	// An empty string in the long-string encoding is valid; arrow-go's
	// Value() panics on it, Equal must not.
	empty, err := Decode(emptyMeta, []byte{0x40, 0, 0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	short, _ := variant.Of("")
	if err := Equal(empty, short); err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(emptyMeta, nestedArrays(1100)); err == nil {
		t.Fatal("1100 nested arrays decoded; want a depth error")
	}
	if _, err := Decode([]byte{0x11, 2, 0, 1, 2, 'b', 'a'}, []byte{0}); err == nil {
		t.Fatal("sorted bit on unsorted keys accepted")
	}
	if _, err := Decode([]byte{0x02, 0, 0}, []byte{0}); err == nil {
		t.Fatal("metadata version 2 accepted")
	}
	v, err := Decode(emptyMeta, nestedArrays(60))
	if err != nil {
		t.Fatal(err)
	}
	// Past the analyzer's depth limit the subtree stays in value.
	l, _ := Analyze([]variant.Value{v}, DefaultAnalyzerConfig())
	row, err := Shred(l, v)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Reconstruct(l, row)
	if err != nil {
		t.Fatal(err)
	}
	if err := Equal(back, v); err != nil {
		t.Fatal(err)
	}
}
