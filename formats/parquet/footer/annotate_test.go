package footer

import (
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

type badFileRef struct {
	URI   *string `parquet:"uri,optional"`
	Extra *int64  `parquet:"extra,optional"`
}

type wrongTypeFileRef struct {
	Size *string `parquet:"size,optional"`
}

type repeatedFileRef struct {
	URI []string `parquet:"uri"`
}

// The FILE field table gives uri, content_type and checksum as STRING and
// inline as BYTE_ARRAY, and "any field that is present has a field
// repetition type of `OPTIONAL`".
type requiredFileRef struct {
	URI  *string `parquet:"uri,optional"`
	Size int64   `parquet:"size"`
}

type bytesURIFileRef struct {
	URI []byte `parquet:"uri,optional"`
}

type bytesContentTypeFileRef struct {
	URI         *string `parquet:"uri,optional"`
	ContentType []byte  `parquet:"content_type,optional"`
}

type bytesChecksumFileRef struct {
	URI      *string `parquet:"uri,optional"`
	Checksum []byte  `parquet:"checksum,optional"`
}

type stringInlineFileRef struct {
	Inline *string `parquet:"inline,optional"`
}

type int32SizeFileRef struct {
	URI  *string `parquet:"uri,optional"`
	Size *int32  `parquet:"size,optional"`
}

type annotateRow struct {
	ID      int64                   `parquet:"id"`
	Bad     badFileRef              `parquet:"bad"`
	Wrong   wrongTypeFileRef        `parquet:"wrong"`
	Rep     repeatedFileRef         `parquet:"rep"`
	Req     requiredFileRef         `parquet:"req"`
	BURI    bytesURIFileRef         `parquet:"buri"`
	BCT     bytesContentTypeFileRef `parquet:"bct"`
	BSum    bytesChecksumFileRef    `parquet:"bsum"`
	SInline stringInlineFileRef     `parquet:"sinline"`
	I32Size int32SizeFileRef        `parquet:"i32size"`
	Tags    []string                `parquet:"tags,list"`
	Nested  [][]float32             `parquet:"nested,list"`
	Attrs   map[string]int64        `parquet:"attrs"`
	Doc     *fileRef                `parquet:"doc,optional"`
	OneLeaf struct {
		X int32 `parquet:"x"`
	} `parquet:"one_leaf"`
}

func TestAnnotateRefusals(t *testing.T) {
	data := writeParquet(t, []annotateRow{{ID: 1}})
	cases := []struct {
		name string
		path []string
		a    Annotation
		want string
	}{
		{"leaf", []string{"id"}, Annotation{Kind: KindFile}, "annotate column id: FILE annotates a group, and this is a INT64 leaf"},
		{"not found", []string{"doc", "nope"}, Annotation{Kind: KindFile}, `column path doc.nope not found: no "nope" under doc`},
		{"empty path", nil, Annotation{Kind: KindFile}, "empty column path"},
		{"FILE child name", []string{"bad"}, Annotation{Kind: KindFile}, `FILE group child "extra" is not one of uri`},
		{"FILE child type", []string{"wrong"}, Annotation{Kind: KindFile}, `FILE group child "size" has type BYTE_ARRAY (STRING), want INT64`},
		{"FILE child repeated", []string{"rep"}, Annotation{Kind: KindFile}, `FILE group child "uri" is REPEATED; FILE children must be optional`},
		{"FILE child required", []string{"req"}, Annotation{Kind: KindFile}, `FILE group child "size" is REQUIRED; FILE children must be optional`},
		{"FILE uri not STRING", []string{"buri"}, Annotation{Kind: KindFile}, `FILE group child "uri" has type BYTE_ARRAY, want STRING`},
		{"FILE content_type not STRING", []string{"bct"}, Annotation{Kind: KindFile}, `FILE group child "content_type" has type BYTE_ARRAY, want STRING`},
		{"FILE checksum not STRING", []string{"bsum"}, Annotation{Kind: KindFile}, `FILE group child "checksum" has type BYTE_ARRAY, want STRING`},
		{"FILE inline as STRING", []string{"sinline"}, Annotation{Kind: KindFile}, `FILE group child "inline" has type BYTE_ARRAY (STRING), want BYTE_ARRAY`},
		{"FILE size as INT32", []string{"i32size"}, Annotation{Kind: KindFile}, `FILE group child "size" has type INT32`},
		{"FILE with another id", []string{"doc"}, Annotation{Kind: KindFile, ID: 20}, "FILE has union id 19, not 20"},
		{"VECTOR length 0", []string{"tags"}, Annotation{Kind: KindVector}, "positive vector length, got 0"},
		{"VECTOR id 19 on a list", []string{"tags"}, Annotation{Kind: KindVector, ID: 19, VectorLength: 2}, "VECTOR union id 19 collides"},
		{"VECTOR id 18", []string{"tags"}, Annotation{Kind: KindVector, ID: 18, VectorLength: 2, VectorRepetition: true}, "VECTOR union id 18 collides"},
		{"VECTOR on a struct", []string{"doc"}, Annotation{Kind: KindVector, VectorLength: 2}, "exactly one child (the middle group), this one has 6"},
		{"VECTOR on a group of one leaf", []string{"one_leaf"}, Annotation{Kind: KindVector, VectorLength: 2}, `the middle level "x" must be a group`},
		{"VECTOR of lists", []string{"nested"}, Annotation{Kind: KindVector, VectorLength: 2},
			"nested.list.element.list inside the vector element is REPEATED"},
		{"VECTOR on a map", []string{"attrs"}, Annotation{Kind: KindVector, VectorLength: 2}, `the middle level "key_value" must be a group with exactly one child`},
		{"unknown kind", []string{"doc"}, Annotation{Kind: KindUnknown}, `FIXED_SIZE_LIST or a registered extension type (RegisterLogicalType), not "UNKNOWN"`},
		{"non-UTF-8 path", []string{"d\xffoc"}, Annotation{Kind: KindFile}, "not valid UTF-8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := readFooterBytes(t, data).Meta
			err := Annotate(m, tc.path, tc.a)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			if _, ok := m.KeyValue(MirrorKey); ok {
				t.Error("a refused annotation was mirrored")
			}
		})
	}
}

func TestAnnotateAmbiguousPath(t *testing.T) {
	m := minimalMeta()
	m.Schema[0].NumChildren = thrift.New[int32](2)
	m.Schema = append(m.Schema, SchemaElement{Name: "g", NumChildren: thrift.New[int32](0), RepetitionType: thrift.New(Optional)})
	err := Annotate(m, []string{"g"}, Annotation{Kind: KindFile})
	if err == nil || !strings.Contains(err.Error(), `column path g is ambiguous: "g" appears twice under <root>`) {
		t.Errorf("err = %v", err)
	}
}

// A reader that drops unknown annotations (or a writer that rewrote the
// footer without them) leaves the mirror, and ReadAnnotations recovers them.
func TestReadAnnotationsFromTheMirror(t *testing.T) {
	m := readFooterBytes(t, writeParquet(t, multimodalRows())).Meta
	if err := annotateMultimodal()(m); err != nil {
		t.Fatal(err)
	}
	for i := range m.Schema {
		m.Schema[i].LogicalType = LogicalType{}
	}
	got, err := ReadAnnotations(m)
	if err != nil {
		t.Fatal(err)
	}
	want := []Annotation{
		{Path: []string{"doc"}, Kind: KindFile, ID: 19, InKeyValue: true},
		{Path: []string{"emb"}, Kind: KindVector, ID: 20, VectorLength: 4, Element: "FLOAT", InKeyValue: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("\n got %+v\nwant %+v", got, want)
	}
}

func TestAnnotateReplacesTheMirrorEntry(t *testing.T) {
	m := readFooterBytes(t, writeParquet(t, multimodalRows())).Meta
	for _, n := range []int32{4, 8} {
		if err := Annotate(m, []string{"emb"}, Annotation{Kind: KindVector, VectorLength: n, ID: 33}); err != nil {
			t.Fatal(err)
		}
	}
	v, _ := m.KeyValue(MirrorKey)
	want := `{"version":1,"annotations":[{"path":["emb"],"kind":"VECTOR","id":33,"vector_length":8,"element":"FLOAT"}]}`
	if v != want {
		t.Errorf("mirror\n got %s\nwant %s", v, want)
	}
}

func TestReadAnnotationsErrors(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{"not json", `key/value metadata "coltype.annotations" is not the annotation mirror`},
		{`{"version":2,"annotations":[]}`, "has version 2; this code reads version 1"},
	} {
		m := minimalMeta()
		m.SetKeyValue(MirrorKey, tc.value)
		if _, err := ReadAnnotations(m); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("mirror %q: err = %v, want %q", tc.value, err, tc.want)
		}
		if err := Annotate(m, []string{"g"}, Annotation{Kind: KindFile}); err == nil {
			t.Errorf("mirror %q: Annotate overwrote a mirror it cannot read", tc.value)
		}
	}
}

func TestReadAnnotationsUnknownAndFooterOnly(t *testing.T) {
	m := minimalMeta()
	m.Schema[1].LogicalType = LogicalType{Value: &UnknownLogicalType{ID: 2555}}
	m.Schema[2].LogicalType = LogicalType{Value: &format.StringType{}}
	got, err := ReadAnnotations(m)
	if err != nil {
		t.Fatal(err)
	}
	want := []Annotation{{Path: []string{"g"}, Kind: KindUnknown, ID: 2555, InFooter: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("\n got %+v\nwant %+v", got, want)
	}
}
