package parquet_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

// withChildlessGroup writes id and name, then inserts an optional group
// without children (field id 3, named "empty") at position at among the
// top-level fields. A childless group is no column: it has no column chunk,
// so the footer keeps one chunk per leaf, as a writer that emits such a
// group writes it.
func withChildlessGroup(t *testing.T, at int) (string, *iceberg.Schema) {
	t.Helper()
	s := iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64), opt(2, "name", iceberg.PrimitiveTypes.String))
	st := s.AsStruct()
	path := tempFile(t, "plain.parquet")
	writeRecords(t, path, s, nil, rec(&st, int64(1), "a"), rec(&st, int64(2), nil))
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw = editFooter(t, raw, func(md *format.FileMetaData) {
		empty := format.SchemaElement{Name: "empty", RepetitionType: thrift.New(format.Optional),
			NumChildren: thrift.New[int32](0), FieldID: 3}
		md.Schema = slices.Insert(md.Schema, 1+at, empty)
		md.Schema[0].NumChildren.V++
	})
	out := tempFile(t, "childless.parquet")
	if err := os.WriteFile(out, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return out, s
}

// A group without children holds no column chunk (parquet-go, parquet-java
// and arrow give chunks to the elements with a physical type), so a footer
// with one chunk per leaf is well formed. The lab used to count the group as
// a column: it refused the file as a corrupt footer ("2 column chunks for 3
// columns"), and its schema tree numbered the columns after the group one
// too high.
func TestChildlessGroupIsNoColumn(t *testing.T) {
	for _, at := range []int{0, 1, 2} { // before, between and after the leaves
		path, s := withChildlessGroup(t, at)
		st := s.AsStruct()
		want := []*data.Record{rec(&st, int64(1), "a"), rec(&st, int64(2), nil)}
		got, err := tryReadRecords(path, func(b *registry.ReadBuilder[*data.Record]) { b.Project(s) })
		if err != nil {
			t.Fatalf("group at %d: projected read: %v", at, err)
		}
		assertRecords(t, got, want)

		// Read whole, the group is a field Iceberg cannot read: an error
		// naming it, never a column left out in silence.
		_, err = tryReadRecords(path, nil)
		if err == nil || !strings.Contains(err.Error(), `"empty"`) {
			t.Errorf("group at %d: whole read: error %v, want one naming column \"empty\"", at, err)
		}
	}
}
