package file

import (
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/coltype"
)

// CheckReference refuses a FILE value whose uri the policy refuses, by the
// policy's rule, and passes values without a uri and columns of other types.
func TestCheckReference(t *testing.T) {
	root := realTempDir(t)
	r := newTestResolver(t, Config{Roots: []string{root}, Schemes: []string{"file"}, BaseLocation: root})
	st, err := NewStruct(10, FieldURI, FieldSize)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Type.FromField(iceberg.NestedField{ID: 9, Name: "img", Type: st})
	if err != nil {
		t.Fatal(err)
	}
	value := func(uri any) *data.Record {
		rec := data.NewStructRecord(st)
		if uri != nil {
			rec.Set(0, uri)
			rec.Set(1, int64(3))
		}
		return rec
	}
	for _, tt := range []struct {
		name     string
		decl     coltype.Decl
		v        any
		wantRule Rule // "" for a pass
		wantErr  string
	}{
		{name: "inside the root", decl: d, v: value("img/a.jpg")},
		{name: "no uri", decl: d, v: value(nil)},
		{name: "dot segment", decl: d, v: value("../a.jpg"), wantRule: RuleDotSegment},
		{name: "outside the root", decl: d, v: value("/etc/passwd"), wantRule: RuleOutsideRoot},
		{name: "scheme not allowed", decl: d, v: value("https://example.com/a.jpg"), wantRule: RuleScheme},
		{name: "not a record", decl: d, v: "img/a.jpg", wantErr: "FILE value holds a Go string, not a record"},
		{name: "another type's column", decl: nil, v: "anything"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := r.CheckReference("img", tt.decl, tt.v)
			switch {
			case tt.wantRule != "":
				if !hasRule(err, tt.wantRule) {
					t.Errorf("err = %v, want rule %s", err, tt.wantRule)
				}
			case tt.wantErr != "":
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("err = %v, want %q", err, tt.wantErr)
				}
			case err != nil:
				t.Errorf("err = %v, want none", err)
			}
		})
	}
}
