package footer

import (
	"bytes"
	"strings"
	"testing"
)

type flbaRow struct {
	ID  int64    `parquet:"id"`
	Emb [16]byte `parquet:"emb"`
	Opt *[8]byte `parquet:"opt,optional"`
}

func TestAnnotateVectorLeaf(t *testing.T) {
	data := writeParquet(t, []flbaRow{{ID: 1, Emb: [16]byte{1}}})
	out := rewrite(t, data, func(m *FileMetaData) error {
		if err := Annotate(m, []string{"emb"}, Annotation{Kind: KindVector, ID: 40, VectorLength: 4, Element: "FLOAT"}); err != nil {
			return err
		}
		return Annotate(m, []string{"opt"}, Annotation{Kind: KindVector, ID: 40, VectorLength: 8, Element: "INT8"})
	})
	f := readFooterBytes(t, out, WithVectorID(40))
	if !bytes.Equal(out[:f.Offset], data[:f.Offset]) {
		t.Fatal("bytes before the footer changed")
	}
	anns, err := ReadAnnotations(f.Meta)
	if err != nil {
		t.Fatal(err)
	}
	if len(anns) != 2 {
		t.Fatalf("annotations %+v", anns)
	}
	for i, want := range []Annotation{
		{Path: []string{"emb"}, Kind: KindVector, ID: 40, VectorLength: 4, Element: "FLOAT"},
		{Path: []string{"opt"}, Kind: KindVector, ID: 40, VectorLength: 8, Element: "INT8"},
	} {
		a := anns[i]
		if a.Path[0] != want.Path[0] || a.Kind != want.Kind || a.ID != want.ID || a.VectorLength != want.VectorLength ||
			a.Element != want.Element || !a.InFooter || !a.InKeyValue {
			t.Errorf("annotation %d = %+v, want %+v in the footer and the mirror", i, a, want)
		}
	}
	// arrow-go gets the leaf without the annotation (no WithVectorID here:
	// Sanitize drops unknown members as well).
	s, err := Sanitize(f.Meta)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range s.Schema {
		if _, ok := e.LogicalType.Value.(*VectorType); ok {
			t.Errorf("sanitized %q keeps %s", e.Name, e.LogicalType.String())
		}
	}
}

func TestAnnotateVectorLeafRefusals(t *testing.T) {
	data := writeParquet(t, []flbaRow{{ID: 1}})
	cases := []struct {
		name string
		path string
		a    Annotation
		want string
	}{
		{"not FLBA", "id", Annotation{Kind: KindVector, VectorLength: 2, Element: "FLOAT"}, "annotate column id: VECTOR on a leaf needs FIXED_LEN_BYTE_ARRAY, this one is INT64"},
		{"bfloat16", "emb", Annotation{Kind: KindVector, VectorLength: 8, Element: "BFLOAT16"}, `VECTOR element "BFLOAT16" is not one of FLOAT, DOUBLE, FLOAT16, INT8`},
		{"no element", "emb", Annotation{Kind: KindVector, VectorLength: 4}, `VECTOR element "" is not one of`},
		{"length", "emb", Annotation{Kind: KindVector, VectorLength: 3, Element: "FLOAT"}, "FIXED_LEN_BYTE_ARRAY(16) cannot hold 3 FLOAT elements of 4 bytes"},
		{"zero length", "emb", Annotation{Kind: KindVector, Element: "FLOAT"}, "positive vector length, got 0"},
		{"repetition", "emb", Annotation{Kind: KindVector, VectorLength: 4, Element: "FLOAT", VectorRepetition: true}, "no middle group"},
		{"id 19", "emb", Annotation{Kind: KindVector, ID: 19, VectorLength: 4, Element: "FLOAT"}, "VECTOR union id 19 collides"},
		{"FILE on FLBA", "emb", Annotation{Kind: KindFile}, "FILE annotates a group"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := readFooterBytes(t, data).Meta
			err := Annotate(m, []string{tc.path}, tc.a)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	// RewriteFooter checks a VECTOR set directly, without Annotate.
	var out bytes.Buffer
	err := RewriteFooter(bytes.NewReader(data), int64(len(data)), &out, func(m *FileMetaData) error {
		m.Schema[1].LogicalType = LogicalType{Value: &VectorType{}}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "column id (schema element 1): VECTOR on a leaf needs FIXED_LEN_BYTE_ARRAY") || out.Len() != 0 {
		t.Errorf("VECTOR on an INT64 leaf: err = %v, %d bytes written", err, out.Len())
	}
	out.Reset()
	if err := RewriteFooter(bytes.NewReader(data), int64(len(data)), &out, func(m *FileMetaData) error {
		m.Schema[2].LogicalType = LogicalType{Value: &VectorType{}}
		return nil
	}); err != nil {
		t.Errorf("VECTOR on a FIXED_LEN_BYTE_ARRAY leaf: %v", err)
	}
}
