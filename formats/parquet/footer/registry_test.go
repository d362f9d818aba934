package footer

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/format"
)

// testExtension is registered once for this package's tests: a type that may
// annotate INT64 leaves only.
const (
	testExtensionKind Kind  = "TEST_STAMP"
	testExtensionID   int16 = 61
)

func init() {
	RegisterLogicalType(ExtensionSpec{Kind: testExtensionKind, ID: testExtensionID, Place: func(meta *FileMetaData, i int) error {
		if el := &meta.Schema[i]; el.IsGroup() || el.Type.V != format.Int64 {
			return errors.New("annotates INT64 leaves only")
		}
		return nil
	}})
}

func TestRegisteredLogicalTypeRoundTrips(t *testing.T) {
	m := minimalMeta()
	if err := Annotate(m, []string{"g", "x"}, Annotation{Kind: testExtensionKind}); err != nil {
		t.Fatal(err)
	}
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	x, ok := got.Schema[2].LogicalType.Value.(*ExtensionType)
	if !ok || x.Kind != testExtensionKind || x.ID != testExtensionID {
		t.Fatalf("decoded member %#v, want the registered %s under id %d", got.Schema[2].LogicalType.Value, testExtensionKind, testExtensionID)
	}
	again, err := Encode(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, b) {
		t.Fatal("a decoded extension does not re-encode byte-identically")
	}
	anns, err := ReadAnnotations(got)
	if err != nil {
		t.Fatal(err)
	}
	if len(anns) != 1 || anns[0].Kind != testExtensionKind || anns[0].ID != testExtensionID || !anns[0].InFooter || !anns[0].InKeyValue ||
		strings.Join(anns[0].Path, ".") != "g.x" {
		t.Fatalf("annotations %+v, want one %s on g.x in the footer and the mirror", anns, testExtensionKind)
	}
	clean, err := Sanitize(got)
	if err != nil {
		t.Fatal(err)
	}
	if v := clean.Schema[2].LogicalType.Value; v != nil {
		t.Fatalf("Sanitize kept %s, which arrow-go cannot read", v)
	}
	if anns, _ := ReadAnnotations(clean); len(anns) != 1 || anns[0].InFooter || !anns[0].InKeyValue {
		t.Fatalf("after Sanitize the mirror should keep the annotation alone: %+v", anns)
	}
}

func TestRegisteredLogicalTypePlacementAndIDs(t *testing.T) {
	for _, tc := range []struct {
		name string
		path []string
		a    Annotation
		want string
	}{
		{"its own rule refuses a group", []string{"g"}, Annotation{Kind: testExtensionKind}, "TEST_STAMP: annotates INT64 leaves only"},
		{"another id", []string{"g", "x"}, Annotation{Kind: testExtensionKind, ID: 62}, "registered under union id 61, not 62"},
		{"vector parameters", []string{"g", "x"}, Annotation{Kind: testExtensionKind, VectorLength: 3}, "takes no vector length"},
		{"VECTOR under its id", []string{"g"}, Annotation{Kind: KindVector, ID: testExtensionID, VectorLength: 2}, "registered to TEST_STAMP"},
		{"an unregistered kind", []string{"g", "x"}, Annotation{Kind: "NOT_REGISTERED"}, "a registered extension type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := minimalMeta()
			err := Annotate(m, tc.path, tc.a)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Annotate = %v, want an error containing %q", err, tc.want)
			}
		})
	}
	// A leaf that already has a logical type keeps it.
	m := minimalMeta()
	m.Schema[2].LogicalType = LogicalType{Value: &format.IntType{BitWidth: 64, IsSigned: true}}
	if err := Annotate(m, []string{"g", "x"}, Annotation{Kind: testExtensionKind}); err == nil || !strings.Contains(err.Error(), "already has logical type") {
		t.Fatalf("Annotate over INT(64) = %v", err)
	}
}

func TestRewriteChecksAnExtensionsPlacement(t *testing.T) {
	m := minimalMeta()
	// An edit that bypasses Annotate still meets the type's own rule.
	m.Schema[1].LogicalType = LogicalType{Value: &ExtensionType{Kind: testExtensionKind, ID: testExtensionID}}
	before := minimalMeta()
	if err := checkShape(before, m, &config{}); err == nil || !strings.Contains(err.Error(), "INT64 leaves only") {
		t.Fatalf("checkShape = %v, want the placement error", err)
	}
}

func TestEncodeRefusesAnUnregisteredExtension(t *testing.T) {
	m := minimalMeta()
	m.Schema[2].LogicalType = LogicalType{Value: &ExtensionType{Kind: "NOT_REGISTERED", ID: 63}}
	if _, err := Encode(m); err == nil || !strings.Contains(err.Error(), "not registered") {
		t.Fatalf("Encode = %v", err)
	}
}

func TestRegisterLogicalTypeRefuses(t *testing.T) {
	place := func(*FileMetaData, int) error { return nil }
	for _, tc := range []struct {
		name string
		spec ExtensionSpec
		want string
	}{
		{"a lower-case kind", ExtensionSpec{Kind: "stamp", ID: 70, Place: place}, "upper-case"},
		{"a built-in kind", ExtensionSpec{Kind: KindFile, ID: 70, Place: place}, "modelled by the footer codec"},
		{"a standard id", ExtensionSpec{Kind: "OTHER", ID: 12, Place: place}, "not above"},
		{"the VECTOR id", ExtensionSpec{Kind: "OTHER", ID: DefaultVectorID, Place: place}, "the lab's VECTOR id"},
		{"the FIXED_SIZE_LIST id", ExtensionSpec{Kind: "OTHER", ID: DefaultFixedSizeListID, Place: place}, "the lab's FIXED_SIZE_LIST id"},
		{"the unknown kind", ExtensionSpec{Kind: KindUnknown, ID: 70, Place: place}, "modelled by the footer codec"},
		{"no rule", ExtensionSpec{Kind: "OTHER", ID: 70}, "no placement rule"},
		{"a taken kind", ExtensionSpec{Kind: testExtensionKind, ID: 70, Place: place}, "already registered"},
		{"a taken id", ExtensionSpec{Kind: "OTHER", ID: testExtensionID, Place: place}, "already registered to TEST_STAMP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) {
					t.Fatalf("panic %v, want one containing %q", r, tc.want)
				}
			}()
			RegisterLogicalType(tc.spec)
		})
	}
	if _, ok := LookupLogicalType("OTHER"); ok {
		t.Fatal("a refused spec was registered")
	}
}

func TestIsExtension(t *testing.T) {
	for _, tc := range []struct {
		v    LogicalTypeValue
		want bool
	}{
		{&FileType{}, true}, {&VectorType{}, true}, {&ExtensionType{Kind: testExtensionKind, ID: testExtensionID}, true},
		{&UnknownLogicalType{ID: 99}, true}, {&FixedSizeListType{Type: format.Float, NumValues: 2}, true}, {&format.StringType{}, false}, {&VariantType{}, false}, {nil, false},
	} {
		if got := IsExtension(tc.v); got != tc.want {
			t.Errorf("IsExtension(%v) = %v", tc.v, got)
		}
	}
}

func TestKnownKind(t *testing.T) {
	for _, k := range []Kind{KindFile, KindVector, KindFixedSizeList, testExtensionKind} {
		if !KnownKind(k) {
			t.Errorf("KnownKind(%s) = false", k)
		}
	}
	for _, k := range []Kind{KindUnknown, "NOT_REGISTERED"} {
		if KnownKind(k) {
			t.Errorf("KnownKind(%s) = true", k)
		}
	}
	// The built-ins are kinds of the registry, not extension types.
	if specs := RegisteredLogicalTypes(); len(specs) != 1 || specs[0].Kind != testExtensionKind {
		t.Fatalf("RegisteredLogicalTypes = %+v, want the test's extension alone", specs)
	}
}

// RewriteFooter checks every registered kind's placement through the
// registry, FIXED_SIZE_LIST's too: an edit that bypasses Annotate may not
// put one on a leaf PR #241 refuses.
func TestRewriteChecksAFixedSizeListsPlacement(t *testing.T) {
	before := flbaMeta(8)
	for _, tc := range []struct {
		name string
		t    *FixedSizeListType
		want string
	}{
		{"a fitting leaf", &FixedSizeListType{Type: format.Float, NumValues: 2}, ""},
		{"the wrong length", &FixedSizeListType{Type: format.Float, NumValues: 3}, "type_length = num_values × 4"},
		{"BOOLEAN elements", &FixedSizeListType{Type: format.Boolean, NumValues: 8}, "must not be `BOOLEAN`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			after := flbaMeta(8)
			after.Schema[1].LogicalType = LogicalType{Value: tc.t}
			err := checkShape(before, after, &config{})
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("checkShape = %v, want %q", err, tc.want)
			}
		})
	}
}
