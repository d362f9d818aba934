package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/formats/parquet/inspect"
)

type cliFileRef struct {
	URI         *string `parquet:"uri,optional"`
	Size        *int64  `parquet:"size,optional"`
	ContentType *string `parquet:"content_type,optional"`
}

type cliAddress struct {
	Street string `parquet:"street"`
	City   string `parquet:"city"`
}

type cliRow struct {
	ID   int64       `parquet:"id"`
	Doc  *cliFileRef `parquet:"doc,optional"`
	Emb  []float32   `parquet:"emb,list"`
	Emb2 []float64   `parquet:"emb2,list"`
	Addr cliAddress  `parquet:"addr"`
}

func cliParquet(t *testing.T) []byte {
	t.Helper()
	s := func(v string) *string { return &v }
	n := func(v int64) *int64 { return &v }
	rows := []cliRow{
		{ID: 1, Doc: &cliFileRef{URI: s("s3://b/a.jpg"), Size: n(10), ContentType: s("image/jpeg")}, Emb: []float32{1, 2, 3, 4}, Emb2: []float64{1, 2}},
		{ID: 2, Emb: []float32{5, 6, 7, 8}, Emb2: []float64{3, 4}, Addr: cliAddress{Street: "Main", City: "X"}},
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[cliRow](&buf)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// replaceFooter puts raw (plus suffix bytes) where data's footer was.
func replaceFooter(t *testing.T, data, raw []byte, suffix ...byte) []byte {
	t.Helper()
	f, err := footer.ReadFooter(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	out := append(bytes.Clone(data[:f.Offset]), raw...)
	out = append(out, suffix...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(raw)+len(suffix)))
	return append(out, "PAR1"...)
}

func writeFile(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestInspectAndAnnotateCLI(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	data := cliParquet(t)
	writeFile(t, filepath.Join(work, "in.parquet"), data)
	writeFile(t, filepath.Join(work, "notes.txt"), []byte("these are not the bytes you are looking for"))

	t.Run("inspect text", func(t *testing.T) {
		out, errOut, code := run(t, bin, work, "inspect", "in.parquet")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, want := range []string{"file           in.parquet", "rows           2 in 1 row group, 8 columns", "schema", "emb.list.element", "row group 0: 2 rows"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("inspect --json", func(t *testing.T) {
		out, errOut, code := run(t, bin, work, "inspect", "--json", "in.parquet")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var rep inspect.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		f, _ := footer.ReadFooter(bytes.NewReader(data), int64(len(data)))
		if rep.NumRows != 2 || rep.FooterOffset != f.Offset || rep.NumColumns != 8 || rep.Schema.Find([]string{"emb", "list", "element"}).PhysicalType != "FLOAT" {
			t.Errorf("report: %d rows, footer at %d (want %d), %d columns", rep.NumRows, rep.FooterOffset, f.Offset, rep.NumColumns)
		}
	})
	t.Run("inspect --help", func(t *testing.T) {
		out, _, code := run(t, bin, work, "inspect", "--help")
		if code != 0 || !strings.Contains(out, "lab inspect data.parquet --json") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
	t.Run("annotate --help", func(t *testing.T) {
		out, _, code := run(t, bin, work, "annotate", "--help")
		if code != 0 || !strings.Contains(out, "lab annotate in.parquet out.parquet --file doc --vector 'emb:vector<float32,768>'") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})

	t.Run("annotate then inspect", func(t *testing.T) {
		out, errOut, code := run(t, bin, work, "annotate", "in.parquet", "out.parquet", "--file", "doc", "--vector", "emb:vector<float32,4>")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		f, _ := footer.ReadFooter(bytes.NewReader(data), int64(len(data)))
		for _, want := range []string{
			"annotated in.parquet -> out.parquet",
			"  doc  FILE(id=19)\n",
			"emb  VECTOR(id=20, element=float32, dim=4, layout=list)",
			"verified: the " + strconv.FormatInt(f.Offset, 10) + " bytes before the footer are identical to in.parquet (compared)",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		got, err := os.ReadFile(filepath.Join(work, "out.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[:f.Offset], data[:f.Offset]) {
			t.Error("bytes before the footer changed")
		}
		out, errOut, code = run(t, bin, work, "inspect", "--json", "out.parquet")
		if code != 0 {
			t.Fatalf("inspect: exit %d: %s", code, errOut)
		}
		var rep inspect.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		doc, emb := rep.Schema.Find([]string{"doc"}).LogicalType, rep.Schema.Find([]string{"emb"}).LogicalType
		if doc == nil || doc.Name != "FILE" || doc.ID != 19 {
			t.Errorf("doc: %+v", doc)
		}
		if emb == nil || emb.Name != "VECTOR" || emb.ID != 20 || emb.Vector == nil ||
			*emb.Vector != (inspect.Vector{Element: "float32", Dim: 4, DimSource: "mirror", Layout: "list"}) {
			t.Errorf("emb: %+v", emb)
		}
		if !slices.ContainsFunc(rep.KeyValue, func(kv inspect.KeyValue) bool { return kv.Key == footer.MirrorKey }) {
			t.Errorf("no %s in the key/value metadata: %+v", footer.MirrorKey, rep.KeyValue)
		}
		text, _, _ := run(t, bin, work, "inspect", "out.parquet")
		if !strings.Contains(text, "FILE(id=19)") || !strings.Contains(text, "VECTOR(id=20, 4×float32, list)") {
			t.Errorf("text view:\n%s", text)
		}
	})
	t.Run("annotate refuses an existing OUT without --force", func(t *testing.T) {
		out := writeFile(t, filepath.Join(work, "exists.parquet"), []byte("keep me"))
		_, errOut, code := run(t, bin, work, "annotate", "in.parquet", "exists.parquet", "--file", "doc")
		if code != 1 || !strings.Contains(errOut, "exists.parquet exists; use --force") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if b, _ := os.ReadFile(out); string(b) != "keep me" {
			t.Fatal("OUT was changed")
		}
		if _, errOut, code := run(t, bin, work, "annotate", "in.parquet", "exists.parquet", "--file", "doc", "--force"); code != 0 {
			t.Fatalf("--force: exit %d: %s", code, errOut)
		}
	})
	t.Run("vector id and VECTOR repetition", func(t *testing.T) {
		_, errOut, code := run(t, bin, work, "annotate", "in.parquet", "vr.parquet", "--vector", "emb:vector<float32,4>;id=33;layout=vector-repetition",
			"--allow-vector-repetition", "--vector", "emb2:vector<float64,2>")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		out, _, _ := run(t, bin, work, "inspect", "--vector-id", "33", "vr.parquet")
		for _, want := range []string{"VECTOR(id=33, 4×float32, vector-repetition)", "vector_length=4", "vector  "} {
			if !strings.Contains(out, want) {
				t.Errorf("inspect lacks %q:\n%s", want, out)
			}
		}
		if !strings.Contains(out, "unknown (id 20)") { // emb2 under id 20, read with 33
			t.Errorf("emb2 should read as unknown (id 20) with --vector-id 33:\n%s", out)
		}
	})

	t.Run("flba layout", func(t *testing.T) {
		type flbaRow struct {
			Vec [16]byte `parquet:"vec"`
		}
		var buf bytes.Buffer
		w := parquet.NewGenericWriter[flbaRow](&buf)
		if _, err := w.Write([]flbaRow{{}, {}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(work, "flba.parquet"), buf.Bytes())
		if _, errOut, code := run(t, bin, work, "annotate", "flba.parquet", "flba-out.parquet", "--vector", "vec:vector<float32,3>;layout=flba"); code != 1 ||
			!strings.Contains(errOut, "16") {
			t.Errorf("dim x width != 16 bytes: exit %d: %s", code, errOut)
		}
		if _, errOut, code := run(t, bin, work, "annotate", "flba.parquet", "flba-out.parquet", "--vector", "vec:vector<float32,4>;layout=flba"); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		out, _, _ := run(t, bin, work, "inspect", "flba-out.parquet")
		if !strings.Contains(out, "VECTOR(id=20, 4×float32, flba)") {
			t.Errorf("inspect of the flba file:\n%s", out)
		}
	})

	// Refusals: exit 1, a clear message, and nothing left behind.
	base := cliParquet(t)
	f, err := footer.ReadFooter(bytes.NewReader(base), int64(len(base)))
	if err != nil {
		t.Fatal(err)
	}
	unknownField := append(bytes.Clone(f.Raw[:len(f.Raw)-1]), 0x05, 0xc8, 0x01, 0x02, 0x00) // field 100 (i32 1), STOP
	writeFile(t, filepath.Join(work, "unknown-field.parquet"), replaceFooter(t, base, unknownField))
	encMeta, _ := footer.Decode(f.Raw)
	encMeta.EncryptionAlgorithm = format.EncryptionAlgorithm{Value: &format.AesGcmV1{AadFileUnique: []byte("u")}}
	encRaw, err := footer.Encode(encMeta)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "plaintext-encrypted.parquet"), replaceFooter(t, base, encRaw, make([]byte, 28)...))
	writeFile(t, filepath.Join(work, "encrypted-footer.parquet"), append([]byte("PAR1xxxxxxxx"), 4, 0, 0, 0, 'P', 'A', 'R', 'E'))

	for _, tt := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"inspect: not parquet", []string{"inspect", "notes.txt"}, 1, "inspect notes.txt: no PAR1 magic at offset 39"},
		{"inspect: missing file", []string{"inspect", "nope.parquet"}, 1, "nope.parquet: no such file"},
		{"inspect: directory", []string{"inspect", "."}, 1, "is a directory"},
		{"inspect: encrypted footer", []string{"inspect", "encrypted-footer.parquet"}, 1, "the footer is encrypted"},
		{"inspect: no argument", []string{"inspect"}, 2, "accepts 1 arg(s), received 0"},
		{"inspect: two arguments", []string{"inspect", "a", "b"}, 2, "accepts 1 arg(s), received 2"},
		{"inspect: bad vector id", []string{"inspect", "--vector-id", "19", "in.parquet"}, 2, "VECTOR union id 19 is not usable"},
		{"inspect: unknown flag", []string{"inspect", "--bogus", "in.parquet"}, 2, "unknown flag: --bogus"},

		{"annotate: nothing to do", []string{"annotate", "in.parquet", "x.parquet"}, 2, "nothing to annotate"},
		{"annotate: one argument", []string{"annotate", "in.parquet", "--file", "doc"}, 2, "accepts 2 arg(s), received 1"},
		{"annotate: no type", []string{"annotate", "in.parquet", "x.parquet", "--vector", "emb"}, 2, `column "emb": no type: want emb:vector<ELEMENT,DIM>`},
		{"annotate: bad dim", []string{"annotate", "in.parquet", "x.parquet", "--vector", "emb:vector<float32,-1>"}, 2, `column "emb": dimension "-1" is not a positive integer`},
		{"annotate: the old form", []string{"annotate", "in.parquet", "x.parquet", "--vector", "emb:dim=4,element=float32"}, 2, "write 'emb:vector<ELEMENT,DIM>[;id=N][;layout=L]'"},
		{"annotate: legacy spelling", []string{"annotate", "in.parquet", "x.parquet", "--vector", "emb:float32:4;layout=flba"}, 1, "FIXED_LEN_BYTE_ARRAY"},
		{"annotate: unknown setting", []string{"annotate", "in.parquet", "x.parquet", "--vector", "emb:vector<float32,4>;size=3"}, 2, `column "emb": unknown setting "size"`},
		{"annotate: setting twice", []string{"annotate", "in.parquet", "x.parquet", "--vector", "emb:vector<float32,4>;id=33;id=34"}, 2, `column "emb": setting id given twice`},
		{"annotate: bad element", []string{"annotate", "in.parquet", "x.parquet", "--vector", "emb:vector<float8,4>"}, 2, `unknown element type "float8"`},
		{"annotate: id in parquet-format's range", []string{"annotate", "in.parquet", "x.parquet", "--vector", "emb:vector<float32,4>;id=5"}, 2, "VECTOR union id 5 is not usable"},
		{"annotate: flba on a list", []string{"annotate", "in.parquet", "x.parquet", "--vector", "emb:vector<float32,4>;layout=flba"}, 1, "FIXED_LEN_BYTE_ARRAY"},
		{"annotate: same column twice", []string{"annotate", "in.parquet", "x.parquet", "--file", "doc", "--vector", "doc:vector<int8,2>"}, 2,
			"--file doc and --vector doc:vector<int8,2> annotate the same column"},
		{"annotate: empty column", []string{"annotate", "in.parquet", "x.parquet", "--file", "a..b"}, 2, "has an empty name"},

		{"annotate: wrong element type", []string{"annotate", "in.parquet", "x.parquet", "--vector", "emb2:vector<float32,2>"}, 1,
			"the element column emb2.list.element is float64, not float32"},
		{"annotate: FILE on a struct of other fields", []string{"annotate", "in.parquet", "x.parquet", "--file", "addr"}, 1,
			`FILE group child "street" is not one of uri, offset, size, content_type, checksum, inline`},
		{"annotate: FILE on a leaf", []string{"annotate", "in.parquet", "x.parquet", "--file", "id"}, 1, "FILE annotates a group, and this is a INT64 leaf"},
		{"annotate: VECTOR on a struct", []string{"annotate", "in.parquet", "x.parquet", "--vector", "addr:vector<float32,2>"}, 1,
			"exactly one child (the middle group), this one has 2"},
		{"annotate: no such column", []string{"annotate", "in.parquet", "x.parquet", "--file", "missing"}, 1, `column path missing not found`},
		{"annotate: shape change", []string{"annotate", "in.parquet", "x.parquet", "--vector", "emb:vector<float32,4>;layout=vector-repetition"}, 1,
			"needs AllowVectorRepetition"},
		{"annotate: not byte-identical", []string{"annotate", "unknown-field.parquet", "x.parquet", "--file", "doc"}, 1,
			"does not re-encode byte-identically"},
		{"annotate: plaintext-footer encryption", []string{"annotate", "plaintext-encrypted.parquet", "x.parquet", "--file", "doc"}, 1,
			"encrypted file (plaintext footer mode)"},
		{"annotate: encrypted footer", []string{"annotate", "encrypted-footer.parquet", "x.parquet", "--file", "doc"}, 1, "encrypted"},
		{"annotate: not parquet", []string{"annotate", "notes.txt", "x.parquet", "--file", "doc"}, 1, "no PAR1 magic"},
		{"annotate: OUT is a directory", []string{"annotate", "in.parquet", ".", "--file", "doc"}, 1, "is a directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := dirEntries(t, work)
			_, errOut, code := run(t, bin, work, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.msg) {
				t.Fatalf("exit %d, stderr %q; want exit %d with %q", code, errOut, tt.code, tt.msg)
			}
			if after := dirEntries(t, work); !slices.Equal(before, after) {
				t.Errorf("the directory changed from %v to %v", before, after)
			}
		})
	}
}

// lab inspect cuts a long bound in its text view, naming its length, and
// keeps it whole with --json.
func TestInspectLongValues(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	long := strings.Repeat("x", 300)
	rows := `{"id":1,"caption":"` + long + `"}` + "\n"
	if err := os.WriteFile(filepath.Join(work, "rows.jsonl"), []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run(t, bin, work, "write", "--schema", "id:long!,caption:string", "--input", "rows.jsonl", "long.parquet"); code != 0 {
		t.Fatalf("write: exit %d: %s", code, errOut)
	}
	out, errOut, code := run(t, bin, work, "inspect", "long.parquet")
	if code != 0 || !strings.Contains(out, `"`+strings.Repeat("x", 22)+"… (300 bytes)") {
		t.Fatalf("exit %d, text view lacks the cut caption bound:\n%s%s", code, out, errOut)
	}
	out, errOut, code = run(t, bin, work, "inspect", "long.parquet", "--json")
	var rep struct {
		RowGroups []struct {
			Columns []struct {
				Path       []string `json:"path"`
				Statistics struct {
					Min string `json:"min"`
				} `json:"statistics"`
			} `json:"columns"`
		} `json:"row_groups"`
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s", code, err, errOut)
	}
	if c := rep.RowGroups[0].Columns[1]; c.Path[0] != "caption" || c.Statistics.Min != `"`+long+`"` {
		t.Errorf("--json caption min is not whole: %+v", c)
	}
}

// lab inspect of a 768-dim VECTOR file as lab write makes it (flba: a
// FIXED_LEN_BYTE_ARRAY(3072) leaf annotated VECTOR), with the encoding and
// codec the VECTOR benchmarks use too, fits inspect.TextWidth on every
// line, as lab pages does, and its schema line still says the physical
// type and length, the element and the dim.
func TestInspectVectorFileFitsTextWidth(t *testing.T) {
	bin := labBinary(t)
	work := t.TempDir()
	writeVectorRows(t, filepath.Join(work, "rows.jsonl"), 13)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"default", nil},
		{"statistics", []string{"-p", "write.parquet.stats-enabled.column.emb=true"}},
		{"byte-stream-split uncompressed", []string{"-p", "write.parquet.vector-encoding.column.emb=byte-stream-split", "--compression", "uncompressed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := strings.ReplaceAll(tc.name, " ", "-") + ".parquet"
			args := append([]string{"write", "-q", "--schema", "id:long!,emb:vector<float32,768>", "--input", "rows.jsonl"}, tc.args...)
			if _, errOut, code := run(t, bin, work, append(args, out)...); code != 0 {
				t.Fatalf("write: exit %d: %s", code, errOut)
			}
			text, errOut, code := run(t, bin, work, "inspect", out)
			if code != 0 {
				t.Fatalf("inspect: exit %d: %s", code, errOut)
			}
			const schemaLine = "    emb  optional    FIXED_LEN_BYTE_ARRAY(3072)  VECTOR(id=20, 768×float32, flba); field_id=2 column 1\n"
			if !strings.Contains(text, schemaLine) {
				t.Errorf("lab inspect lacks the schema line %q:\n%s", schemaLine, text)
			}
			for _, line := range strings.Split(text, "\n") {
				if n := utf8.RuneCountInString(line); n > inspect.TextWidth {
					t.Errorf("lab inspect: line of %d columns, more than %d: %s", n, inspect.TextWidth, line)
				}
			}
		})
	}
}
