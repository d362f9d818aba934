package parquet_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/file"
)

var update = flag.Bool("update", false, "rewrite golden files instead of comparing with them")

// goldenFileDir holds the FILE golden files: one Parquet file per resolution
// case with a JSON sidecar, and the objects their relative uris name.
const goldenFileDir = "../../spec/golden/file"

// goldenCreatedBy replaces parquet-go's created_by, which carries its
// version, so the files do not change with a dependency bump alone.
const goldenCreatedBy = "coltype-lab golden files"

// The external objects, small and fixed.
var goldenObjects = map[string][]byte{
	"objects/data.bin":  []byte("0123456789abcdefghijklmnopqrstuvwxyz"),
	"objects/whole.bin": []byte("a whole external object\n"),
}

type goldenCase struct {
	name, description string
	value             *file.Value
	// bytes is what the value resolves to; rule is the violation instead.
	bytes []byte
	rule  file.Rule
}

func goldenCases() []goldenCase {
	data, whole := goldenObjects["objects/data.bin"], goldenObjects["objects/whole.bin"]
	sum := sha256.Sum256(whole)
	p, n := file.Ptr[string], file.Ptr[int64]
	return []goldenCase{
		{name: "inline-only", description: "inline set: the inline bytes",
			value: &file.Value{Inline: []byte("inline bytes"), ContentType: p("text/plain")}, bytes: []byte("inline bytes")},
		{name: "whole-object", description: "uri only: the whole external object",
			value: &file.Value{URI: p("objects/whole.bin")}, bytes: whole},
		{name: "whole-object-sha256", description: "uri with a SHA-256 checksum of the whole object, verified while streaming",
			value: &file.Value{URI: p("objects/whole.bin"), Checksum: p("SHA-256:" + hex.EncodeToString(sum[:]))}, bytes: whole},
		{name: "range", description: "uri, offset and size: [offset, offset+size) of the object",
			value: &file.Value{URI: p("objects/data.bin"), Offset: n(10), Size: n(6), ContentType: p("application/octet-stream")}, bytes: data[10:16]},
		{name: "size-only-range", description: "uri and size without offset: [0, size) of the object",
			value: &file.Value{URI: p("objects/data.bin"), Size: n(4)}, bytes: data[:4]},
		{name: "inline-with-locator", description: "inline and a consistent locator: the inline bytes, which equal the located ones",
			value: &file.Value{Inline: slices.Clone(data[10:16]), URI: p("objects/data.bin"), Offset: n(10), Size: n(6)}, bytes: data[10:16]},

		{name: "invalid-nothing-set", description: "neither inline nor uri, only metadata",
			value: &file.Value{ContentType: p("image/png")}, rule: file.RuleMustResolve},
		{name: "invalid-empty-uri", description: "an empty uri is not set",
			value: &file.Value{URI: p("")}, rule: file.RuleMustResolve},
		{name: "invalid-size-only", description: "size without uri or inline",
			value: &file.Value{Size: n(4)}, rule: file.RuleMustResolve},
		{name: "invalid-offset-size-only", description: "offset and size without uri or inline",
			value: &file.Value{Offset: n(1), Size: n(4)}, rule: file.RuleMustResolve},
		{name: "invalid-offset-without-uri", description: "offset beside inline, without uri",
			value: &file.Value{Inline: []byte("x"), Offset: n(0), Size: n(1)}, rule: file.RuleOffsetWithoutURI},
		{name: "invalid-offset-without-size", description: "uri and offset without size",
			value: &file.Value{URI: p("objects/data.bin"), Offset: n(2)}, rule: file.RuleOffsetWithoutSize},
		{name: "invalid-offset-negative", description: "a negative offset",
			value: &file.Value{URI: p("objects/data.bin"), Offset: n(-1), Size: n(2)}, rule: file.RuleOffsetNegative},
		{name: "invalid-size-negative", description: "a negative size",
			value: &file.Value{URI: p("objects/data.bin"), Size: n(-1)}, rule: file.RuleSizeNegative},
		{name: "invalid-inline-size-mismatch", description: "size differs from the length of inline",
			value: &file.Value{Inline: []byte("abc"), Size: n(4)}, rule: file.RuleInlineLocatorMismatch},
		{name: "invalid-inline-bytes-mismatch", description: "inline and the locator denote different bytes (found while resolving)",
			value: &file.Value{Inline: []byte("XXXXXX"), URI: p("objects/data.bin"), Offset: n(10), Size: n(6)}, rule: file.RuleInlineLocatorMismatch},
		{name: "invalid-checksum-syntax", description: "a checksum that is not <algorithm>:<digest> in the algorithm's encoding",
			value: &file.Value{URI: p("objects/whole.bin"), Checksum: p("MD5:xyz")}, rule: file.RuleChecksumSyntax},
	}
}

// goldenSidecar is the JSON beside each Parquet file.
type goldenSidecar struct {
	Case        string       `json:"case"`
	Description string       `json:"description"`
	Column      string       `json:"column"`
	Row         int          `json:"row"`
	Value       goldenValue  `json:"value"`
	Expect      goldenExpect `json:"expect"`
}

type goldenValue struct {
	URI         *string `json:"uri,omitempty"`
	Offset      *int64  `json:"offset,omitempty"`
	Size        *int64  `json:"size,omitempty"`
	ContentType *string `json:"content_type,omitempty"`
	Checksum    *string `json:"checksum,omitempty"`
	InlineHex   *string `json:"inline_hex,omitempty"`
}

type goldenExpect struct {
	// Resolves: the bytes, as hex, their length and SHA-256.
	BytesHex *string `json:"bytes_hex,omitempty"`
	Size     *int    `json:"size,omitempty"`
	SHA256   *string `json:"sha256,omitempty"`
	// Invalid: the violated rule of spec/FILE.md.
	Violation file.Rule `json:"violation,omitempty"`
}

func goldenSchema(t testing.TB) *iceberg.Schema {
	doc, err := file.Column(2, "doc", false, file.AllFields...)
	if err != nil {
		t.Fatal(err)
	}
	return iceberg.NewSchema(0, req(1, "id", iceberg.PrimitiveTypes.Int64), doc)
}

// generateGolden writes every golden file under dir. Valid values go through
// the writer with the FILE declaration (annotated on Close); invalid ones,
// which that writer rejects, are written as a plain struct and annotated with
// footer.RewriteFooter. Both then get the fixed created_by.
func generateGolden(t *testing.T, dir string) {
	t.Helper()
	sc := goldenSchema(t)
	docType := sc.Field(1).Type.(*iceberg.StructType)
	for name, b := range goldenObjects {
		mustWrite(t, filepath.Join(dir, name), b)
	}
	for _, c := range goldenCases() {
		docRec, err := c.value.ToRecord(docType)
		if err != nil {
			t.Fatal(err)
		}
		var props map[string]string
		if c.value.Validate() == nil {
			props = map[string]string{parquet.PropFileColumns: "doc"}
		}
		tmp := filepath.Join(t.TempDir(), c.name+".parquet")
		writeRecords(t, tmp, sc, props, rec(schemaStruct(sc), int64(0), docRec))
		raw, err := os.ReadFile(tmp)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		err = footer.RewriteFooter(bytes.NewReader(raw), int64(len(raw)), &out, func(m *footer.FileMetaData) error {
			m.CreatedBy.V = goldenCreatedBy
			if props != nil {
				return nil // annotated by the writer
			}
			return footer.Annotate(m, []string{"doc"}, footer.Annotation{Kind: footer.KindFile})
		})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		mustWrite(t, filepath.Join(dir, c.name+".parquet"), out.Bytes())

		side := goldenSidecar{Case: c.name, Description: c.description, Column: "doc", Row: 0, Value: goldenValue{
			URI: c.value.URI, Offset: c.value.Offset, Size: c.value.Size, ContentType: c.value.ContentType, Checksum: c.value.Checksum,
		}}
		if c.value.Inline != nil {
			h := hex.EncodeToString(c.value.Inline)
			side.Value.InlineHex = &h
		}
		if c.rule != "" {
			side.Expect.Violation = c.rule
		} else {
			h, n, s := hex.EncodeToString(c.bytes), len(c.bytes), sha256.Sum256(c.bytes)
			sum := hex.EncodeToString(s[:])
			side.Expect = goldenExpect{BytesHex: &h, Size: &n, SHA256: &sum}
		}
		js, err := json.MarshalIndent(side, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(dir, c.name+".json"), append(js, '\n'))
	}
}

func mustWrite(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func listFiles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestGoldenFileRegenerate regenerates the golden files and fails when they
// differ from the checked-in ones; -update writes them instead.
func TestGoldenFileRegenerate(t *testing.T) {
	gen := t.TempDir()
	generateGolden(t, gen)
	if *update {
		if err := os.RemoveAll(goldenFileDir); err != nil {
			t.Fatal(err)
		}
		for _, name := range listFiles(t, gen) {
			b, _ := os.ReadFile(filepath.Join(gen, name))
			mustWrite(t, filepath.Join(goldenFileDir, name), b)
		}
		return
	}
	// Twice in one run must give the same bytes, or the files are not deterministic.
	again := t.TempDir()
	generateGolden(t, again)
	want, got := listFiles(t, gen), listFiles(t, goldenFileDir)
	if !slices.Equal(want, got) {
		t.Fatalf("%s holds %v, the generator writes %v; run go test ./formats/parquet/ -run Golden -update", goldenFileDir, got, want)
	}
	for _, name := range want {
		g, _ := os.ReadFile(filepath.Join(gen, name))
		a, _ := os.ReadFile(filepath.Join(again, name))
		c, err := os.ReadFile(filepath.Join(goldenFileDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(g, a) {
			t.Errorf("%s: two generations differ: the generator is not deterministic", name)
		}
		if !bytes.Equal(g, c) {
			t.Errorf("%s: regenerated bytes differ from the checked-in file; run go test ./formats/parquet/ -run Golden -update and review the diff", name)
		}
	}
}

// TestGoldenFileResolution reads each checked-in golden file, finds its FILE
// column from the footer and resolves the value against spec/golden/file.
func TestGoldenFileResolution(t *testing.T) {
	root, err := filepath.Abs(goldenFileDir)
	if err != nil {
		t.Fatal(err)
	}
	resolver, err := file.NewResolver(file.Config{Roots: []string{root}, Schemes: []string{"file"}, BaseLocation: root, VerifyChecksums: true})
	if err != nil {
		t.Fatal(err)
	}
	sidecars, _ := filepath.Glob(filepath.Join(root, "*.json"))
	if len(sidecars) != len(goldenCases()) {
		t.Fatalf("%d sidecars in %s, want %d; run go test ./formats/parquet/ -run Golden -update", len(sidecars), root, len(goldenCases()))
	}
	for _, sc := range sidecars {
		var side goldenSidecar
		b, err := os.ReadFile(sc)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &side); err != nil {
			t.Fatalf("%s: %v", sc, err)
		}
		t.Run(side.Case, func(t *testing.T) {
			path := filepath.Join(root, side.Case+".parquet")
			anns, err := parquet.FileAnnotations(registry.LocalInput(path))
			if err != nil {
				t.Fatal(err)
			}
			if len(anns) != 1 || anns[0].Kind != footer.KindFile || anns[0].Path[0] != side.Column || !anns[0].InFooter || !anns[0].InKeyValue {
				t.Fatalf("annotations %+v, want FILE on %s in the footer and the mirror", anns, side.Column)
			}
			recs := readRecords(t, path, nil)
			if len(recs) <= side.Row {
				t.Fatalf("%d rows", len(recs))
			}
			docRec, _ := recs[side.Row].Get(1).(*data.Record)
			v, err := file.FromRecord(docRec)
			if err != nil {
				t.Fatal(err)
			}
			got, err := resolver.ReadAll(context.Background(), v)
			if side.Expect.Violation != "" {
				rule, ok := file.RuleOf(err)
				if !ok || rule != side.Expect.Violation {
					t.Fatalf("resolved to %q, err %v; want violation %s", got, err, side.Expect.Violation)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(got)
			if hex.EncodeToString(got) != *side.Expect.BytesHex || len(got) != *side.Expect.Size || hex.EncodeToString(sum[:]) != *side.Expect.SHA256 {
				t.Errorf("resolved to %q, want hex %s (%d bytes, sha256 %s)", got, *side.Expect.BytesHex, *side.Expect.Size, *side.Expect.SHA256)
			}
		})
	}
}
