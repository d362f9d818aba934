package inspect

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/internal/testenv"
)

// Every parquet-testing file inspects, renders as text and as JSON, without
// a panic; an error must name the file.
func TestParquetTestingFiles(t *testing.T) {
	root := testenv.ParquetTestingDir(t)
	var ok, failed int
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".parquet") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rep, err := InspectFile(path, Options{Name: rel})
		if err != nil {
			failed++
			if !strings.Contains(err.Error(), rel) {
				t.Errorf("%s: error does not name the file: %v", rel, err)
			}
			t.Logf("%s: %v", rel, err)
			return nil
		}
		ok++
		var buf bytes.Buffer
		if err := rep.WriteText(&buf); err != nil {
			t.Errorf("%s: text: %v", rel, err)
		}
		if err := rep.WriteJSON(&buf); err != nil {
			t.Errorf("%s: JSON: %v", rel, err)
		}
		for _, w := range rep.Warnings {
			t.Logf("%s: warning: %s", rel, w)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("parquet-testing: %d files inspected, %d refused with an error", ok, failed)
	if ok == 0 {
		t.Error("no file inspected; is the directory right?")
	}
}

func TestParquetTestingUnknownLogicalType(t *testing.T) {
	path := filepath.Join(testenv.ParquetTestingDir(t, "data"), "unknown-logical-type.parquet")
	rep, err := InspectFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	known := node(t, rep, "column with known type").LogicalType
	unknown := node(t, rep, "column with unknown type").LogicalType
	if known == nil || known.Text != "STRING" {
		t.Errorf("known: %+v", known)
	}
	if unknown == nil || unknown.Name != "UNKNOWN" || unknown.ID != 2555 || unknown.Text != "unknown (id 2555)" {
		t.Errorf("unknown: %+v", unknown)
	}
	if len(rep.Annotations) != 1 || rep.Annotations[0].Kind != "UNKNOWN" || rep.Annotations[0].ID != 2555 {
		t.Errorf("annotations %+v", rep.Annotations)
	}
	if s := text(t, rep); !strings.Contains(s, "column with unknown type  optional    BYTE_ARRAY  unknown (id 2555)") {
		t.Errorf("text view:\n%s", s)
	}
}

func TestParquetTestingShreddedVariant(t *testing.T) {
	dir := testenv.ParquetTestingDir(t, "shredded_variant")
	cases := []struct {
		file    string
		summary string
		layout  string // JSON of the layout
		err     string
	}{
		{file: "case-044.parquet", summary: "{c:{a:int32,b:string},d:double}",
			layout: `{"kind":"object","value":true,"fields":[` +
				`{"name":"c","layout":{"kind":"object","value":true,"fields":[` +
				`{"name":"a","layout":{"kind":"primitive","type":"int32","value":true}},` +
				`{"name":"b","layout":{"kind":"primitive","type":"string","value":true}}]}},` +
				`{"name":"d","layout":{"kind":"primitive","type":"double","value":true}}]}`},
		{file: "case-001.parquet", summary: "[string]",
			layout: `{"kind":"array","value":true,"element":{"kind":"primitive","type":"string","value":true}}`},
		{file: "case-024.parquet", summary: "decimal(9,4)", layout: `{"kind":"primitive","type":"decimal(9,4)","value":true}`},
		{file: "case-047.parquet", layout: `{"kind":"unshredded","value":true}`},
		// parquet-testing expects readers to refuse these layouts.
		{file: "case-127.parquet", err: "Unsupported shredded value type: INT32 (INT(32,false))"},
		{file: "case-137.parquet", err: "Unsupported shredded value type: FIXED_LEN_BYTE_ARRAY"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			rep, err := InspectFile(filepath.Join(dir, c.file), Options{})
			if err != nil {
				t.Fatal(err)
			}
			lt := node(t, rep, "var").LogicalType
			if lt == nil || lt.Name != "VARIANT" || lt.Variant == nil {
				t.Fatalf("var: %+v", lt)
			}
			v := lt.Variant
			if c.err != "" {
				if !strings.Contains(v.Error, c.err) || v.Layout != nil {
					t.Errorf("variant %+v, want error %q", v, c.err)
				}
				return
			}
			got, _ := json.Marshal(v.Layout)
			if v.Error != "" || v.Summary != c.summary || v.Shredded != (c.summary != "") || string(got) != c.layout {
				t.Errorf("variant %+v\nlayout %s\n want %s, %s", v, got, c.summary, c.layout)
			}
		})
	}
}

// FuzzInspect: whatever bytes a file holds, Inspect and both renderers
// return (an error or a report), never panic.
func FuzzInspect(f *testing.F) {
	for _, data := range [][]byte{
		writeParquet(f, rows()),
		withFooter(f, writeParquet(f, rows()), func(m *footer.FileMetaData) { m.KeyValueMetadata = nil }),
	} {
		f.Add(data)
		fo := readFooter(f, data)
		for _, at := range []int64{fo.Offset + 5, fo.Offset + fo.Length/2, fo.Offset + fo.Length - 3} {
			flipped := bytes.Clone(data)
			flipped[at] ^= 0x21
			f.Add(flipped)
		}
	}
	if root := os.Getenv("PARQUET_TEST_DATA"); root != "" {
		if data, err := os.ReadFile(filepath.Join(root, "data", "unknown-logical-type.parquet")); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := Inspect(bytes.NewReader(data), int64(len(data)), Options{Name: "fuzz"})
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := rep.WriteText(&buf); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
	})
}
