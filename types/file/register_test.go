package file

import (
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/coltype"
)

// FILE's registered entry: its spellings, its binding to a struct, and its
// JSON check and formatter.
func TestRegisteredFile(t *testing.T) {
	d, err := Type.Parse("img", "file<size, uri>")
	if err != nil {
		t.Fatal(err)
	}
	if d.TypeName() != "file<uri,size>" {
		t.Errorf("TypeName = %s", d.TypeName())
	}
	st, err := d.IcebergType(10)
	if want, _ := NewStruct(10, FieldURI, FieldSize); err != nil || !st.Equals(want) {
		t.Fatalf("IcebergType(10) = %v, %v", st, err)
	}
	all, _ := Type.Parse("img", "file")
	if all.TypeName() != "file<uri,offset,size,content_type,checksum,inline>" {
		t.Errorf("file = %s", all.TypeName())
	}
	for _, tt := range []struct{ spelling, msg string }{
		{"file<url>", `column "img": "url" is not a FILE child`},
		{"file<uri,uri>", `column "img": FILE child uri named twice`},
		{"file<>", `column "img": "" is not a FILE child`},
		{"file(uri)", `column "img": "file(uri)" is not file or file<child,...>`},
	} {
		if _, err := Type.Parse("img", tt.spelling); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Parse(%q) = %v, want %q", tt.spelling, err, tt.msg)
		}
	}
	if _, err := d.Bind(iceberg.NestedField{ID: 1, Name: "img", Type: iceberg.PrimitiveTypes.Binary}); err == nil ||
		err.Error() != "has type binary; a FILE column is a struct of FILE children" {
		t.Errorf("Bind to binary: %v", err)
	}
	f := iceberg.NestedField{ID: 10, Name: "img", Type: st}
	bound, err := d.Bind(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := Columns([]coltype.Decl{bound}); len(got) != 1 || got[0] != "img" {
		t.Errorf("Columns = %v", got)
	}
	plain := func(text []byte) (any, error) { // the struct's JSON, as data/jsonrow decodes it
		r := data.NewStructRecord(st.(*iceberg.StructType))
		switch string(text) {
		case `{"uri":"a.bin","size":3}`:
			r.Set(0, "a.bin")
			r.Set(1, int64(3))
		case `{"size":3}`:
			r.Set(1, int64(3))
		}
		return r, nil
	}
	v, err := bound.DecodeJSON([]byte(`{"uri":"a.bin","size":3}`), plain)
	if err != nil {
		t.Fatal(err)
	}
	if got := bound.Format(v); got != `{uri: "a.bin", size: 3}` {
		t.Errorf("Format = %q", got)
	}
	if _, err := bound.DecodeJSON([]byte(`{"size":3}`), plain); err == nil {
		t.Error("a size without a uri passed the FILE rules")
	}
}
