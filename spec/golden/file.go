package golden

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/filecol"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/file"
)

// FileObjects are the external objects the FILE cases' relative uris name,
// written under file/objects/.
var FileObjects = map[string][]byte{
	"objects/data.bin":  []byte("0123456789abcdefghijklmnopqrstuvwxyz"),
	"objects/whole.bin": []byte("a whole external object\n"),
}

// FileValue is a FILE value's fields in a sidecar; inline as hex.
type FileValue struct {
	URI         *string `json:"uri,omitempty"`
	Offset      *int64  `json:"offset,omitempty"`
	Size        *int64  `json:"size,omitempty"`
	ContentType *string `json:"content_type,omitempty"`
	Checksum    *string `json:"checksum,omitempty"`
	InlineHex   *string `json:"inline_hex,omitempty"`
}

// FileExpect is what resolving a FILE value gives.
type FileExpect struct {
	// Resolves: the bytes, as hex, their length and SHA-256.
	BytesHex *string `json:"bytes_hex,omitempty"`
	Size     *int    `json:"size,omitempty"`
	SHA256   *string `json:"sha256,omitempty"`
	// Checksum is "unverifiable" when the value resolves but a reader
	// asked to verify it cannot use its checksum (spec/FILE.md, Checksums).
	Checksum string `json:"checksum,omitempty"`
	// Invalid: the violated rule of spec/FILE.md.
	Violation file.Rule `json:"violation,omitempty"`
}

// fileCase is one FILE resolution case: bytes is what the value resolves
// to, rule the violation instead.
type fileCase struct {
	name, description string
	value             *file.Value
	bytes             []byte
	rule              file.Rule
	unverifiable      bool
}

func fileCases() []fileCase {
	data, whole := FileObjects["objects/data.bin"], FileObjects["objects/whole.bin"]
	sum := sha256.Sum256(whole)
	p, n := file.Ptr[string], file.Ptr[int64]
	return []fileCase{
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
		// The Validation list has no checksum rule and "Readers should ignore
		// unknown algorithms": a checksum a reader cannot use leaves the
		// reference valid, and a verifying reader reports it unverifiable.
		{name: "checksum-unverifiable", description: "a checksum that is not <algorithm>:<digest> in the algorithm's encoding: the whole object, checksum unverifiable",
			value: &file.Value{URI: p("objects/whole.bin"), Checksum: p("MD5:xyz")}, bytes: whole, unverifiable: true},

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
			value: &file.Value{Inline: []byte("abc"), URI: p("objects/data.bin"), Size: n(4)}, rule: file.RuleInlineLocatorMismatch},
		{name: "invalid-inline-size-without-uri", description: "size beside inline without uri: fields set alongside inline must form a locator valid on its own",
			value: &file.Value{Inline: []byte("abcd"), Size: n(4)}, rule: file.RuleInlineLocatorInvalid},
		{name: "invalid-inline-bytes-mismatch", description: "inline and the locator denote different bytes (found while resolving)",
			value: &file.Value{Inline: []byte("XXXXXX"), URI: p("objects/data.bin"), Offset: n(10), Size: n(6)}, rule: file.RuleInlineLocatorMismatch},
	}
}

// FileCaseCount is the number of FILE cases the generator writes.
func FileCaseCount() int { return len(fileCases()) }

// fileSchema is every FILE case's table: id long, doc FILE with all fields.
func fileSchema() (*iceberg.Schema, error) {
	doc, err := file.Column(2, "doc", false, file.AllFields...)
	if err != nil {
		return nil, err
	}
	id := iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true}
	return iceberg.NewSchema(0, id, doc), nil
}

// generateFileCases writes the FILE cases. Valid values go through the
// record writer with the FILE declaration (annotated on Close); invalid
// ones, which that writer rejects, are written as a plain struct and
// annotated by a footer rewrite. Both get the fixed created_by. Pages are
// uncompressed so that every reader (hyparquet has no zstd) opens them.
func generateFileCases(out, work string) error {
	sc, err := fileSchema()
	if err != nil {
		return err
	}
	docType := sc.Field(1).Type.(*iceberg.StructType)
	for name, b := range FileObjects {
		if err := writeFile(filepath.Join(out, name), b); err != nil {
			return err
		}
	}
	for _, c := range fileCases() {
		docRec, err := c.value.ToRecord(docType)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		props := map[string]string{parquet.PropCompressionCodec: "uncompressed"}
		valid := c.value.Validate() == nil
		if valid {
			props[filecol.PropColumns] = "doc"
		}
		tmp := filepath.Join(work, c.name+".parquet")
		if err := writeRecords(tmp, sc, props, data.Of(sc, int64(0), docRec)); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		err = rewriteFooter(tmp, filepath.Join(out, c.name+".parquet"), func(m *footer.FileMetaData) error {
			if valid {
				return nil // annotated by the writer
			}
			return footer.Annotate(m, []string{"doc"}, footer.Annotation{Kind: footer.KindFile})
		})
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		if err := writeSidecar(out, fileSidecar(c)); err != nil {
			return err
		}
	}
	return nil
}

func fileSidecar(c fileCase) Sidecar {
	row := 0
	v := &FileValue{URI: c.value.URI, Offset: c.value.Offset, Size: c.value.Size, ContentType: c.value.ContentType, Checksum: c.value.Checksum}
	if c.value.Inline != nil {
		h := hex.EncodeToString(c.value.Inline)
		v.InlineHex = &h
	}
	expect := &FileExpect{Violation: c.rule}
	if c.rule == "" {
		h, n, s := hex.EncodeToString(c.bytes), len(c.bytes), sha256.Sum256(c.bytes)
		sum := hex.EncodeToString(s[:])
		expect = &FileExpect{BytesHex: &h, Size: &n, SHA256: &sum}
		if c.unverifiable {
			expect.Checksum = "unverifiable"
		}
	}
	// The struct as a reader returns it: every child, null when unset.
	doc := map[string]any{
		"uri": c.value.URI, "offset": c.value.Offset, "size": c.value.Size,
		"content_type": c.value.ContentType, "checksum": c.value.Checksum, "inline": v.InlineHex,
	}
	return Sidecar{
		Case: c.name, Kind: KindFile, Description: c.description, File: c.name + ".parquet",
		Column: "doc", Annotation: "FILE",
		Rows: []map[string]any{{"id": 0, "doc": doc}},
		Row:  &row, Value: v, Expect: expect,
	}
}

// writeRecords writes recs through the registry's Parquet model for
// *data.Record.
func writeRecords(path string, sc *iceberg.Schema, props map[string]string, recs ...*data.Record) error {
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		return err
	}
	w, err := b.Schema(sc).SetAll(props).Overwrite().Build()
	if err != nil {
		return err
	}
	for i, r := range recs {
		if err := w.Write(r); err != nil {
			w.Close()
			return fmt.Errorf("record %d: %w", i, err)
		}
	}
	return w.Close()
}

// rewriteFooter copies src to dst with the fixed created_by and edit
// applied to the footer (nil: none); every byte before the footer stays.
func rewriteFooter(src, dst string, edit func(*footer.FileMetaData) error, opts ...footer.Option) error {
	raw, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	err = footer.RewriteFooter(bytes.NewReader(raw), int64(len(raw)), &out, func(m *footer.FileMetaData) error {
		m.CreatedBy.V = CreatedBy
		if edit != nil {
			return edit(m)
		}
		return nil
	}, opts...)
	if err != nil {
		return err
	}
	return writeFile(dst, out.Bytes())
}
