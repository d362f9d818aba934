package filecol_test

import (
	"reflect"
	"testing"

	"github.com/coltype-lab/lab/formats/parquet/annotate/request"
	"github.com/coltype-lab/lab/formats/parquet/filecol"
	"github.com/coltype-lab/lab/formats/parquet/footer"
)

// The texts are lab annotate --file's after its `--file "COLUMN": `.
func TestFileAnnotateRequest(t *testing.T) {
	rt, ok := request.Lookup(filecol.AnnotateTypeName)
	if !ok || rt.Syntax != "COLUMN:file" {
		t.Fatalf("request type %s: %+v, %v", filecol.AnnotateTypeName, rt, ok)
	}
	file := func(spec string, path ...string) request.Request {
		return request.Request{Name: spec, Path: path, Annotation: footer.Annotation{Kind: footer.KindFile}}
	}
	for _, tt := range []struct {
		spec    string
		want    request.Request
		wantErr string
	}{
		{spec: "doc:file", want: file("doc:file", "doc")},
		{spec: "a.b.doc:file", want: file("a.b.doc:file", "a", "b", "doc")},
		{spec: "a:b:file", want: file("a:b:file", "a:b")},
		{spec: "doc:file;id=19", wantErr: `type "file;id=19": want COLUMN:file (file takes no parameters or settings)`},
		{spec: "a..b:file", wantErr: `column path "a..b" has an empty name`},
		{spec: ":file", wantErr: "empty column path"},
	} {
		got, err := rt.Parse(tt.spec) // as lab annotate --file COLUMN, spec COLUMN:file
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%q: error %v, want %q", tt.spec, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: %+v, %v; want %+v", tt.spec, got, err, tt.want)
		}
	}
	// --type picks the parser by the spec's type, where the column is
	// what precedes the first ':'.
	if got, err := request.Parse("a.doc:file"); err != nil || !reflect.DeepEqual(got, file("a.doc:file", "a", "doc")) {
		t.Errorf("request.Parse: %+v, %v", got, err)
	}
}
