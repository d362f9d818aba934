package footer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/parquet-go/parquet-go/encoding/thrift"
)

// RewriteFooter copies the size-byte Parquet file in to out with its footer
// replaced: every byte before the footer is copied verbatim, then the footer
// as edited by edit, its length and "PAR1".
//
// It refuses, returning an error before writing anything to out, when
//   - the file is encrypted (either footer mode);
//   - the footer does not re-encode byte-identically before the edit (the
//     error names the first differing byte), because the rewrite would then
//     change bytes the caller did not ask to change;
//   - the edit changes the schema's shape: the number of elements, a name,
//     num_children, a physical type, a type length or a repetition type
//     (REPEATED <-> VECTOR and vector_length only with AllowVectorRepetition);
//   - the edit changes the file's row count, row groups or column chunks
//     (a chunk may lose its ColumnIndex with AllowUnlinkingColumnIndexes);
//   - the edit puts a FILE or VECTOR annotation where Annotate would refuse
//     it (a FILE leaf, a VECTOR group that is not a 3-level list, a VECTOR
//     leaf that is not FIXED_LEN_BYTE_ARRAY);
//   - the edited footer does not decode again.
//
// Edits may change annotations (logical and converted types, scale,
// precision, field ids), key/value metadata, created_by and column orders.
// A failure while writing to out leaves it partly written.
func RewriteFooter(in io.ReaderAt, size int64, out io.Writer, edit func(*FileMetaData) error, opts ...Option) error {
	offset, footer, err := editFooter(in, size, edit, opts)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, io.NewSectionReader(in, 0, offset))
	if err != nil {
		return fmt.Errorf("copy the %d bytes before the footer: %w", offset, err)
	}
	if n != offset {
		return fmt.Errorf("copied %d of the %d bytes before the footer", n, offset)
	}
	_, err = out.Write(framed(footer))
	if err != nil {
		return fmt.Errorf("write footer: %w", err)
	}
	return nil
}

// RewriteFooterInPlace is RewriteFooter on f itself: the bytes before the
// footer stay where they are, and f ends with the edited footer. Nothing
// is copied, so a writer can fix the footer of a file it has just written
// at no cost beyond the footer. It refuses what RewriteFooter refuses,
// before changing f. A failure after that leaves f without a valid
// footer: use it on files that are still being made.
func RewriteFooterInPlace(f *os.File, edit func(*FileMetaData) error, opts ...Option) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	offset, footer, err := editFooter(f, st.Size(), edit, opts)
	if err != nil {
		return err
	}
	if err := f.Truncate(offset); err != nil {
		return fmt.Errorf("truncate %s before its footer: %w", f.Name(), err)
	}
	if _, err := f.WriteAt(framed(footer), offset); err != nil {
		return fmt.Errorf("write footer of %s: %w", f.Name(), err)
	}
	return nil
}

// framed is footer followed by its length and "PAR1".
func framed(footer []byte) []byte {
	out := make([]byte, 0, len(footer)+trailerLen)
	out = append(out, footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, magic...)
}

// editFooter reads the footer of the size-byte file in, applies edit and
// checks the result as RewriteFooter documents; it returns where the
// footer starts and the edited footer.
func editFooter(in io.ReaderAt, size int64, edit func(*FileMetaData) error, opts []Option) (offset int64, footer []byte, err error) {
	defer guard(&err, "rewrite footer")
	cfg, err := newConfig(opts)
	if err != nil {
		return 0, nil, err
	}
	f, err := ReadFooter(in, size, opts...)
	if err != nil {
		return 0, nil, err
	}
	if f.Meta.Encrypted() || f.Signature != nil {
		return 0, nil, fmt.Errorf("footer at offset %d belongs to an encrypted file (plaintext footer mode); rewriting it would break its signature: %w",
			f.Offset, ErrEncrypted)
	}
	again, err := Encode(f.Meta)
	if err != nil {
		return 0, nil, fmt.Errorf("footer at offset %d: %w", f.Offset, err)
	}
	if !bytes.Equal(again, f.Raw) {
		at := firstDifference(again, f.Raw)
		return 0, nil, fmt.Errorf("footer at offset %d does not re-encode byte-identically "+
			"(first difference at footer byte %d, file offset %d; %d bytes stored, %d re-encoded), "+
			"so a rewrite would alter bytes nobody asked to change (typically a field or union member this model does not know, "+
			"fields out of id order, or non-minimal varints): refusing to rewrite",
			f.Offset, at, f.Offset+int64(at), len(f.Raw), len(again))
	}
	// The edit gets its own copy; before is the reference for the checks.
	before, _, err := decode(f.Raw, opts, nil)
	if err != nil {
		return 0, nil, err
	}
	meta := f.Meta
	if edit != nil {
		if err := edit(meta); err != nil {
			return 0, nil, fmt.Errorf("footer edit: %w", err)
		}
	}
	if err := checkShape(before.FileMetaData, meta, cfg); err != nil {
		return 0, nil, fmt.Errorf("footer edit refused: %w", err)
	}
	footer, err = Encode(meta)
	if err != nil {
		return 0, nil, err
	}
	if _, _, err := decode(footer, opts, nil); err != nil {
		return 0, nil, fmt.Errorf("edited footer does not decode: %w", err)
	}
	if int64(len(footer)) > math.MaxUint32 {
		return 0, nil, fmt.Errorf("edited footer is %d bytes, more than a footer length can express", len(footer))
	}
	return f.Offset, footer, nil
}

func firstDifference(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// checkShape refuses edits that would make the footer describe data other
// than the data in the file.
func checkShape(before, after *FileMetaData, cfg *config) error {
	if len(after.Schema) != len(before.Schema) {
		return fmt.Errorf("the number of schema elements changed from %d to %d", len(before.Schema), len(after.Schema))
	}
	tree, err := newSchemaTree(before.Schema)
	if err != nil {
		return err
	}
	// Same tree (num_children may not change), over the edited elements.
	afterTree := *tree
	afterTree.schema = after.Schema
	for i := range before.Schema {
		b, a := &before.Schema[i], &after.Schema[i]
		where := func() string { return fmt.Sprintf("column %s (schema element %d)", pathString(tree.path(i)), i) }
		switch {
		case a.Name != b.Name:
			return fmt.Errorf("%s: name changed to %q", where(), a.Name)
		case a.NumChildren != b.NumChildren:
			return fmt.Errorf("%s: num_children changed from %s to %s", where(), nullString(b.NumChildren.V, b.NumChildren.Valid), nullString(a.NumChildren.V, a.NumChildren.Valid))
		case a.Type != b.Type:
			return fmt.Errorf("%s: physical type changed from %s to %s", where(), nullString(b.Type.V, b.Type.Valid), nullString(a.Type.V, a.Type.Valid))
		case a.TypeLength != b.TypeLength:
			return fmt.Errorf("%s: type length changed from %s to %s", where(), nullString(b.TypeLength.V, b.TypeLength.Valid), nullString(a.TypeLength.V, a.TypeLength.Valid))
		}
		if a.LogicalType.String() != b.LogicalType.String() {
			// A new FILE or VECTOR must sit where its spec allows, whether
			// or not the edit went through Annotate.
			var err error
			if k := kindOf(a.LogicalType.Value); k != nil {
				err = k.place(after, &afterTree, i)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", where(), err)
			}
		}
		if a.RepetitionType != b.RepetitionType || a.VectorLength != b.VectorLength {
			if !cfg.allowVectorRepetition {
				return fmt.Errorf("%s: repetition changed from %s to %s (vector_length %s to %s); a change between REPEATED and VECTOR needs AllowVectorRepetition",
					where(), repetitionString(b), repetitionString(a),
					nullString(b.VectorLength.V, b.VectorLength.Valid), nullString(a.VectorLength.V, a.VectorLength.Valid))
			}
			if !vectorSwitch(b) || !vectorSwitch(a) {
				return fmt.Errorf("%s: repetition changed from %s to %s; only REPEATED <-> VECTOR may change", where(), repetitionString(b), repetitionString(a))
			}
			isVector := a.RepetitionType.V == Vector
			if isVector != (a.VectorLength.Valid && a.VectorLength.V > 0) || (!isVector && a.VectorLength.Valid) {
				return fmt.Errorf("%s: repetition %s with vector_length %s: PR #592 requires a positive vector_length exactly on VECTOR groups",
					where(), repetitionString(a), nullString(a.VectorLength.V, a.VectorLength.Valid))
			}
		}
	}
	if after.NumRows != before.NumRows {
		return fmt.Errorf("num_rows changed from %d to %d", before.NumRows, after.NumRows)
	}
	if len(after.RowGroups) != len(before.RowGroups) {
		return fmt.Errorf("the number of row groups changed from %d to %d", len(before.RowGroups), len(after.RowGroups))
	}
	for i := range before.RowGroups {
		want := before.RowGroups[i]
		if cfg.allowUnlinkingColumnIndex {
			want = withUnlinkedColumnIndexes(want, after.RowGroups[i])
		}
		b, err1 := encodeValue(&want)
		a, err2 := encodeValue(&after.RowGroups[i])
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("row group %d: %w", i, err)
		}
		if !bytes.Equal(a, b) {
			return fmt.Errorf("row group %d or its column chunks changed", i)
		}
	}
	if after.Encrypted() {
		return fmt.Errorf("the edit adds encryption metadata")
	}
	return nil
}

// withUnlinkedColumnIndexes is rg with the ColumnIndex references cleared
// on the chunks where edited has none: the row group the edit may produce.
func withUnlinkedColumnIndexes(rg, edited RowGroup) RowGroup {
	rg.Columns = slices.Clone(rg.Columns)
	for c := range rg.Columns {
		if c < len(edited.Columns) && !edited.Columns[c].ColumnIndexOffset.Valid && !edited.Columns[c].ColumnIndexLength.Valid {
			rg.Columns[c].ColumnIndexOffset = thrift.Null[int64]{}
			rg.Columns[c].ColumnIndexLength = thrift.Null[int32]{}
		}
	}
	return rg
}

func vectorSwitch(e *SchemaElement) bool {
	return e.RepetitionType.Valid && (e.RepetitionType.V == Repeated || e.RepetitionType.V == Vector)
}

func repetitionString(e *SchemaElement) string {
	return nullString(e.RepetitionType.V, e.RepetitionType.Valid)
}

func nullString[T any](v T, valid bool) string {
	if !valid {
		return "unset"
	}
	return fmt.Sprint(v)
}
