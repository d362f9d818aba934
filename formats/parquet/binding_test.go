package parquet_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/data/schemaspec"
	"github.com/coltype-lab/lab/formats/parquet"
	_ "github.com/coltype-lab/lab/formats/parquet/arrow" // registers (PARQUET, arrow.RecordBatch)
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/inspect"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/internal/toytype"
	"github.com/coltype-lab/lab/registry"
)

// The toy type (internal/toytype) reaches the Parquet models through one
// blank-importable package: these tests use nothing of it but its names.

func toySchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		req(1, "id", iceberg.PrimitiveTypes.Int64),
		opt(2, "score", iceberg.PrimitiveTypes.Float64),
	)
}

func toyRecords(scores ...any) []*data.Record {
	st := toySchema().AsStruct()
	out := make([]*data.Record, len(scores))
	for i, s := range scores {
		out[i] = rec(&st, int64(i), s)
	}
	return out
}

func TestAPluggedTypeIsWrittenAnnotatedAndReadBack(t *testing.T) {
	for _, tc := range []struct {
		name     string
		props    map[string]string
		inFooter bool
	}{
		{"in the footer", map[string]string{toytype.PropColumns: "score"}, true},
		{"mirror only", map[string]string{toytype.PropColumns: "score", parquet.PropFooterAnnotations: "false"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tempFile(t, "toy.parquet")
			want := toyRecords(0.25, nil, 1.0, 0.0)
			writeRecords(t, path, toySchema(), tc.props, want...)
			assertRecords(t, readRecords(t, path, nil), want)

			anns, err := parquet.FileAnnotations(registry.LocalInput(path))
			if err != nil {
				t.Fatal(err)
			}
			if len(anns) != 1 || anns[0].Kind != toytype.Kind || anns[0].ID != toytype.ID || strings.Join(anns[0].Path, ".") != "score" ||
				anns[0].InFooter != tc.inFooter || !anns[0].InKeyValue {
				t.Fatalf("annotations %+v, want %s on score (in footer %v) and in the mirror", anns, toytype.Kind, tc.inFooter)
			}
			rep, err := inspect.InspectFile(path, inspect.Options{})
			if err != nil {
				t.Fatal(err)
			}
			lt := rep.Schema.Children[1].LogicalType
			switch {
			case tc.inFooter && (lt == nil || lt.Name != string(toytype.Kind) || lt.Text != fmt.Sprintf("UNIT_INTERVAL(id=%d)", toytype.ID)):
				t.Fatalf("inspect shows %+v for score, want UNIT_INTERVAL", lt)
			case !tc.inFooter && lt != nil:
				t.Fatalf("inspect shows %+v for a mirror-only annotation", lt)
			}
		})
	}
}

// The schema forms know the type by its registered name: the declaration
// they produce is the binding's property.
func TestAPluggedTypeIsDeclaredInTheSchemaForms(t *testing.T) {
	spec, err := schemaspec.Parse("id:long!,score:" + toytype.Name)
	if err != nil {
		t.Fatal(err)
	}
	if !spec.Schema.Field(1).Type.Equals(iceberg.PrimitiveTypes.Float64) {
		t.Fatalf("score has type %s", spec.Schema.Field(1).Type)
	}
	path := tempFile(t, "declared.parquet")
	writeRecords(t, path, spec.Schema, spec.Properties(), toyRecords(0.5)...)
	anns, err := parquet.FileAnnotations(registry.LocalInput(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(anns) != 1 || anns[0].Kind != toytype.Kind {
		t.Fatalf("annotations %+v", anns)
	}
}

func TestAPluggedTypeChecksEveryValueAndDeclaration(t *testing.T) {
	props := map[string]string{toytype.PropColumns: "score"}
	_, err := tryWriteRecords(tempFile(t, "bad.parquet"), toySchema(), props, toyRecords(0.5, 1.5)...)
	if err == nil || !strings.Contains(err.Error(), `write record 1`) || !strings.Contains(err.Error(), `column "score": value 1.5 is outside UNIT_INTERVAL's [0, 1]`) {
		t.Fatalf("writing 1.5 = %v, want the binding's refusal naming the record and column", err)
	}
	for _, tc := range []struct {
		name  string
		props map[string]string
		want  string
	}{
		{"a long column", map[string]string{toytype.PropColumns: "id"}, toytype.PropColumns + `: column "id" (field id 1): has type long, a UNIT_INTERVAL column is a double`},
		{"a missing column", map[string]string{toytype.PropColumns: "nope"}, `column "nope" is not a top-level column`},
		{"declared twice", map[string]string{toytype.PropColumns: "score", vectorcol.PropColumns: "score:float32:2"}, `column "score" is already declared in ` + toytype.PropColumns},
		{"a misspelt property", map[string]string{toytype.PropColumns + "s": "score"}, toytype.PropColumns + "s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tryWriteRecords(tempFile(t, "bad.parquet"), toySchema(), tc.props, toyRecords(0.5)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Build = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// A column whose mirror claims the type while its data cannot hold it is
// refused on read, naming the column, not read as a plain long.
func TestAPluggedTypeRecognisesItsColumnsOnRead(t *testing.T) {
	path := tempFile(t, "forged.parquet")
	writeRecords(t, path, toySchema(), map[string]string{toytype.PropColumns: "score"}, toyRecords(0.5)...)
	forged := tempFile(t, "forged2.parquet")
	src, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	fi, _ := src.Stat()
	out, err := os.Create(forged)
	if err != nil {
		t.Fatal(err)
	}
	err = footer.RewriteFooter(src, fi.Size(), out, func(m *footer.FileMetaData) error {
		mirror, _ := json.Marshal(map[string]any{"version": 1, "annotations": []footer.Annotation{
			{Path: []string{"id"}, Kind: toytype.Kind, ID: toytype.ID}}})
		m.SetKeyValue(footer.MirrorKey, string(mirror))
		m.Schema[2].LogicalType = footer.LogicalType{}
		return nil
	})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	_, err = tryReadRecords(forged, nil)
	if err == nil || !strings.Contains(err.Error(), `UNIT_INTERVAL column "id": annotated UNIT_INTERVAL but read as long`) {
		t.Fatalf("read = %v, want the binding's refusal", err)
	}
}

// The arrow model sees columns, not records, so it cannot run a binding's
// value check: it refuses the declaration, naming the binding.
func TestArrowModelRefusesAPluggedType(t *testing.T) {
	b, err := registry.DataWriteBuilder[arrow.RecordBatch](registry.PARQUET, registry.LocalOutput(tempFile(t, "a.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Schema(toySchema()).Set(toytype.PropColumns, "score").Build()
	if err == nil || !strings.Contains(err.Error(), toytype.PropColumns+" is not supported") || !strings.Contains(err.Error(), "write UNIT_INTERVAL columns with *data.Record rows") {
		t.Fatalf("Build = %v", err)
	}
}
