package table

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data/coltype"
	"github.com/coltype-lab/lab/internal/toytype"
)

// The toy column type (internal/toytype: UNIT_INTERVAL, a double in
// [0, 1], with its footer logical type, its column binding and its
// value-level entry). Nothing in the table package names it, nor FILE or
// VECTOR, on the way from the table's properties to its Spec, its writes
// and its description.
const (
	toyName     = toytype.Name
	toyProperty = toytype.PropColumns
)

// A registered type survives create → describe, whether the schema form
// names it or only its property declares it, next to FILE and VECTOR; the
// table's writes take its property and its value check, and its rows scan
// back.
func TestTableTakesRegisteredColumnTypes(t *testing.T) {
	ctx := context.Background()
	cat, _ := openTestCatalog(t)
	typed := createTable(t, cat, "lab.toy", CreateOptions{Spec: mustSpec(t, "id:long!,score:unit_interval,emb:vector<float32,2>,img:file")})
	byProperty := createTable(t, cat, "lab.toy_by_property", CreateOptions{Spec: mustSpec(t, "id:long!,score:double"),
		Properties: map[string]string{toyProperty: "score"}})
	for _, tc := range []struct {
		tbl  *Table
		want map[string][]string
		keys []string // the JSON's keys of column types, in order
	}{
		{typed, map[string][]string{"file": {"img"}, toyName: {"score"}, "vector": {"emb:vector<float32,2>"}},
			[]string{"file_columns", "unit_interval_columns", "vector_columns"}},
		{byProperty, map[string][]string{toyName: {"score"}}, []string{"unit_interval_columns"}},
	} {
		t.Run(tc.tbl.Name(), func(t *testing.T) {
			// What the catalog holds, not what Create returned.
			tbl, err := cat.Load(ctx, tc.tbl.Identifier())
			if err != nil {
				t.Fatal(err)
			}
			if got := tbl.Iceberg().Properties()[toyProperty]; got != "score" {
				t.Fatalf("table property %s = %q, want score", toyProperty, got)
			}
			spec, err := tbl.Spec()
			if err != nil {
				t.Fatal(err)
			}
			if d, ok := spec.Decl("score"); !ok || d.Type().Name != toyName {
				t.Fatalf("the table's spec declares score as %v (%v), want %s", d, ok, toyName)
			}
			d, err := tbl.Describe()
			if err != nil {
				t.Fatal(err)
			}
			if !maps.EqualFunc(d.Columns, tc.want, slices.Equal) {
				t.Errorf("describe: columns %v, want %v", d.Columns, tc.want)
			}
			b, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			if keys := columnKeys(t, b); !slices.Equal(keys, tc.keys) {
				t.Errorf("describe JSON: column keys %v, want %v", keys, tc.keys)
			}
			var back Description
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if !maps.EqualFunc(back.Columns, tc.want, slices.Equal) {
				t.Errorf("describe JSON read back: columns %v, want %v", back.Columns, tc.want)
			}

			appendJSON(t, tbl, `{"id":1,"score":0.25}`, `{"id":2,"score":null}`)
			if got, _ := scanJSON(t, tbl, ScanOptions{Columns: []string{"id", "score"}}); !slices.Equal(got, []string{`{"id":1,"score":0.25}`, `{"id":2,"score":null}`}) {
				t.Errorf("scan: %v", got)
			}
			_, err = tbl.AppendRows(ctx, jsonRows(t, tbl, `{"id":3,"score":1.5}`))
			if err == nil || !strings.Contains(err.Error(), "outside UNIT_INTERVAL's [0, 1]") {
				t.Errorf("appending score 1.5: %v, want the type's check to refuse it", err)
			}
		})
	}
}

// columnKeys are the top-level keys of a description's JSON that list a
// column type's columns, in order.
func columnKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if _, err := dec.Token(); err != nil { // {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
		if k := tok.(string); strings.HasSuffix(k, "_columns") {
			keys = append(keys, k)
		}
	}
	return keys
}

// The description's JSON for FILE and VECTOR is the one it had when they
// were fields of their own, byte for byte: the same keys, in the same
// place.
func TestDescriptionJSONKeepsFileAndVectorColumns(t *testing.T) {
	cat, _ := openTestCatalog(t)
	tbl := createTable(t, cat, "lab.mm", CreateOptions{Spec: mustSpec(t, multimodal), Partition: "region"})
	appendJSON(t, tbl, multimodalRows...)
	d, err := tbl.Describe()
	if err != nil {
		t.Fatal(err)
	}
	// Description as it was, with FileColumns and VectorColumns.
	legacy := struct {
		Name              string                `json:"name"`
		Location          string                `json:"location"`
		FormatVersion     int                   `json:"format_version"`
		Schema            *iceberg.Schema       `json:"schema"`
		FileColumns       []string              `json:"file_columns,omitempty"`
		VectorColumns     []string              `json:"vector_columns,omitempty"`
		FooterAnnotations bool                  `json:"footer_annotations"`
		Partition         iceberg.PartitionSpec `json:"partition_spec"`
		Properties        map[string]string     `json:"properties"`
		CurrentSnapshotID *int64                `json:"current_snapshot_id,omitempty"`
		NextRowID         int64                 `json:"next_row_id,omitempty"`
		Snapshots         []SnapshotInfo        `json:"snapshots"`
	}{d.Name, d.Location, d.FormatVersion, d.Schema, []string{"img"}, []string{"emb:vector<float32,4>"},
		d.FooterAnnotations, d.Partition, d.Properties, d.CurrentSnapshotID, d.NextRowID, d.Snapshots}
	want, err := json.MarshalIndent(legacy, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("describe JSON:\n%s\nwant\n%s", got, want)
	}
	// Without lab types, no key at all, as before.
	plain := createTable(t, cat, "lab.plain", CreateOptions{Spec: mustSpec(t, idSchema)})
	pd, err := plain.Describe()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(pd)
	if err != nil {
		t.Fatal(err)
	}
	if keys := columnKeys(t, b); len(keys) != 0 || pd.Columns != nil {
		t.Errorf("a table without lab types: columns %v, JSON keys %v", pd.Columns, keys)
	}
}

// metricsDecl is a declaration of a type that asks for a metrics mode:
// only Type, ColumnName and TypeName are called on it.
type metricsDecl struct {
	coltype.Decl
	t      *coltype.Type
	column string
}

func (d metricsDecl) Type() *coltype.Type { return d.t }
func (d metricsDecl) ColumnName() string  { return d.column }
func (d metricsDecl) TypeName() string    { return d.t.Name }

// A column type's TableMetrics becomes its columns' metrics mode, which the
// caller's properties override; VECTOR's is counts, and a type without one
// leaves the column to the table's default.
func TestTablePropertiesTakeTypesMetricsModes(t *testing.T) {
	spec := mustSpec(t, "id:long!,emb:vector<float32,2>,score:unit_interval")
	spec.Decls = append(spec.Decls, metricsDecl{t: &coltype.Type{Name: "probe", Property: "write.parquet.probe-columns", TableMetrics: "truncate(8)"}, column: "probe_col"})
	props := tableProperties(spec, map[string]string{"write.metadata.metrics.column.probe_col": "full"})
	for col, want := range map[string]string{"emb": "counts", "probe_col": "full", "score": "", "id": ""} {
		if got := props["write.metadata.metrics.column."+col]; got != want {
			t.Errorf("metrics mode of %s = %q, want %q", col, got, want)
		}
	}
	props = tableProperties(spec, nil)
	if got := props["write.metadata.metrics.column.probe_col"]; got != "truncate(8)" {
		t.Errorf("metrics mode of probe_col without the caller's = %q, want truncate(8)", got)
	}
}
