package vectorcol

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/coltype"
	"github.com/coltype-lab/lab/data/schemaspec"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/vector"
)

// HitRows reads exactly the hit rows' projected columns, across row groups,
// in jsonrow's form (a VECTOR as its numbers), and refuses a hit past the
// file's end rather than leaving it out.
func TestHitRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hits.parquet")
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "emb", Type: iceberg.FixedTypeOf(8), Required: true})
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(sc).Set(PropColumns, "emb:vector<float32,2>").Set(parquet.PropRowGroupRows, "4").Build()
	if err != nil {
		t.Fatal(err)
	}
	const rows = 10
	for i := range rows {
		emb, err := vector.Float32.EncodeAppend(nil, []float32{float32(i), -1})
		if err != nil {
			t.Fatal(err)
		}
		var name any
		if i%3 == 0 {
			name = "r" + string(rune('a'+i))
		}
		if err := w.Write(data.Of(sc, int64(100+i), name, emb)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	emb, err := vector.ParseType("emb", "vector<float32,2>")
	if err != nil {
		t.Fatal(err)
	}
	spec := func(t *testing.T, columns []string, decls ...coltype.Decl) *schemaspec.Spec {
		sel, err := sc.Select(true, columns...)
		if err != nil {
			t.Fatal(err)
		}
		s, err := schemaspec.FromSchema(sel, decls)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	hits := func(ids ...int64) []vector.Result {
		out := make([]vector.Result, len(ids))
		for i, id := range ids {
			out[i] = vector.Result{ID: id, Score: float32(id)}
		}
		return out
	}
	for _, tt := range []struct {
		name    string
		spec    *schemaspec.Spec
		res     [][]vector.Result
		want    map[int64]string
		wantErr string
	}{
		{
			name: "two queries, hits in three row groups",
			spec: spec(t, []string{"id", "name"}),
			res:  [][]vector.Result{hits(9, 0), hits(5, 9)},
			want: map[int64]string{
				0: `{"id":100,"name":"ra"}`,
				5: `{"id":105,"name":null}`,
				9: `{"id":109,"name":"rj"}`,
			},
		},
		{
			name: "a VECTOR column in its JSON form",
			spec: spec(t, []string{"emb"}, emb),
			res:  [][]vector.Result{hits(3)},
			want: map[int64]string{3: `{"emb":[3,-1]}`},
		},
		{
			name: "no hits",
			spec: spec(t, []string{"id"}),
			res:  [][]vector.Result{{}},
			want: map[int64]string{},
		},
		{
			name:    "a hit past the end",
			spec:    spec(t, []string{"id"}),
			res:     [][]vector.Result{hits(2, rows+2)},
			wantErr: "hits.parquet: row 12 was a hit but the file ends at row 10",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := HitRows(registry.LocalInput(path), path, tt.spec, tt.res)
			if tt.wantErr != "" {
				if err == nil || !strings.HasSuffix(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one ending %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Errorf("%d rows, want %d: %v", len(got), len(tt.want), got)
			}
			for pos, want := range tt.want {
				if string(got[pos]) != want {
					t.Errorf("row %d = %s, want %s", pos, got[pos], want)
				}
			}
		})
	}
}
