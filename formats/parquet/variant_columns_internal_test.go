package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/internal/pages"
	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/variant"
)

// variantReadOutcome is what a read of a file's variant column returned:
// each row's metadata and value bytes ("null" for a SQL NULL), and the
// error that ended the read.
type variantReadOutcome struct {
	rows []string
	err  string
	// batched counts the rows the column-wise assembly handed out
	// without the row path.
	batched int
}

// readVariantOutcome reads column v of path with the column-wise
// assembly (rows false) or the row path, under opts.
func readVariantOutcome(t testing.TB, path string, rows bool, opts registry.ReadOptions) variantReadOutcome {
	t.Helper()
	defer func(old bool) { variantReadRows = old }(variantReadRows)
	variantReadRows = rows
	var out variantReadOutcome
	r, err := newRecordReader(registry.LocalInput(path), opts)
	if err != nil {
		out.err = "open: " + err.Error()
		return out
	}
	defer r.Close()
	field, vr := -1, (*variantRead)(nil)
	for i, c := range r.root.children {
		if c.variant != nil {
			field, vr = i, c.variant
		}
	}
	if vr == nil {
		t.Fatalf("%s: no variant field is read", path)
	}
	for {
		rec, err := r.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				out.err = err.Error()
			}
			break
		}
		switch v := rec.Get(field).(type) {
		case nil:
			out.rows = append(out.rows, "null")
		case pvariant.Value:
			out.rows = append(out.rows, fmt.Sprintf("%x/%x", v.Metadata().Bytes(), v.Bytes()))
		default:
			out.rows = append(out.rows, fmt.Sprintf("%T %v", v, v))
		}
	}
	if vr.batch != nil {
		out.batched = len(out.rows) - vr.slowRows
	}
	return out
}

// zstdDetail is the decoder's account of a corrupt zstd page, which
// has been seen to differ between two reads of the same page in one run of
// this test, after other corrupt pages: the page and the column are named
// before it.
var zstdDetail = regexp.MustCompile(`(ZSTD data of \d+ bytes): .*`)

// sameVariantReads fails t where the column-wise assembly and the row path
// read path differently: a value, a null, the row of an error or its text.
func sameVariantReads(t *testing.T, what, path string, opts registry.ReadOptions) variantReadOutcome {
	t.Helper()
	cols := readVariantOutcome(t, path, false, opts)
	rows := readVariantOutcome(t, path, true, opts)
	if zstdDetail.ReplaceAllString(cols.err, "") != zstdDetail.ReplaceAllString(rows.err, "") {
		t.Errorf("%s: column-wise read ends with %q, the row path with %q", what, cols.err, rows.err)
	}
	if len(cols.rows) != len(rows.rows) {
		t.Errorf("%s: column-wise read returns %d rows, the row path %d", what, len(cols.rows), len(rows.rows))
	}
	for i := range min(len(cols.rows), len(rows.rows)) {
		if cols.rows[i] != rows.rows[i] {
			t.Errorf("%s: row %d: column-wise %s, row path %s", what, i, cols.rows[i], rows.rows[i])
			break
		}
	}
	return cols
}

// TestVariantColumnsMatchRows: the column-wise assembly returns the row
// path's bytes for every row of shredded files of every shape the fast
// paths handle (partial shredding, arrays of objects, empty arrays, SQL
// NULL rows, row groups that end inside a batch), and reads nearly every
// row of a valid file itself.
func TestVariantColumnsMatchRows(t *testing.T) {
	values := fastCorpus(t, 3000)
	sc := idVariantSchema()
	records := make([]*data.Record, len(values))
	for i, v := range values {
		var x any = v
		if i%13 == 4 {
			x = nil // a SQL NULL
		}
		records[i] = data.Of(sc, int64(i), x)
	}
	for name, props := range map[string]map[string]string{
		"unshredded": nil,
		"shredded":   {PropShredVariants: "true", PropVariantInferenceRows: "3000"},
		"small":      {PropShredVariants: "true", PropVariantInferenceRows: "5", PropRowGroupRows: "700"},
		"pages":      {PropShredVariants: "true", PropVariantInferenceRows: "200", "write.parquet.page-size-bytes": "2048"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "v.parquet")
			writeVariantRecords(t, path, sc, props, records)
			got := sameVariantReads(t, name, path, registry.ReadOptions{CaseSensitive: true})
			if len(got.rows) != len(values) {
				t.Fatalf("%d rows, want %d", len(got.rows), len(values))
			}
			if got.batched < len(values)*9/10 {
				t.Errorf("the column-wise assembly read %d of %d rows itself", got.batched, len(values))
			}
			for _, p := range []string{"null", "repair-key-order"} {
				opts := registry.ReadOptions{CaseSensitive: true, Properties: map[string]string{variant.ReadPolicyKey: p}}
				sameVariantReads(t, name+" "+p, path, opts)
			}
		})
	}
}

// writeVariantRecords writes records through the registry.
func writeVariantRecords(t testing.TB, path string, sc *iceberg.Schema, props map[string]string, records []*data.Record) {
	t.Helper()
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(sc).SetAll(props).Overwrite().Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestVariantColumnsMatchRowsOnCorruptFiles: a byte of the fuzz seeds
// changed anywhere, the column-wise assembly returns what the row path
// returns, an error at the same row with the same text included.
func TestVariantColumnsMatchRowsOnCorruptFiles(t *testing.T) {
	dir := t.TempDir()
	differ := 0
	for s, seed := range variantReadSeeds(t, dir, nil) {
		step := 1
		if testing.Short() {
			step = 7
		}
		for at := 0; at < len(seed); at += step {
			corrupt := bytes.Clone(seed)
			corrupt[at] ^= 0x5a
			path := filepath.Join(dir, "corrupt.parquet")
			if err := os.WriteFile(path, corrupt, 0o644); err != nil {
				t.Fatal(err)
			}
			got := sameVariantReads(t, fmt.Sprintf("seed %d, byte %d", s, at), path, registry.ReadOptions{CaseSensitive: true})
			if got.err != "" && !strings.HasPrefix(got.err, "open: ") {
				differ++
			}
		}
	}
	// The test is only as good as the reads it makes fail.
	if differ < 20 {
		t.Errorf("only %d corrupt files failed while reading rows", differ)
	}
}

// TestVariantColumnsMatchRowsOnParquetTesting: the same on every file of
// parquet-testing's shredded_variant, the invalid ones (a value and a
// typed_value both set, fields shredded and in the residual, and more)
// included, under each read policy.
func TestVariantColumnsMatchRowsOnParquetTesting(t *testing.T) {
	dir := testenv.ParquetTestingDir(t, "shredded_variant")
	files, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	one, two := 1, 2
	mapping := iceberg.NameMapping{{Names: []string{"id"}, FieldID: &one}, {Names: []string{"var"}, FieldID: &two}}
	batched, failed := 0, 0
	for _, path := range files {
		for _, p := range []string{"error", "null", "repair-key-order"} {
			opts := registry.ReadOptions{CaseSensitive: true, NameMapping: mapping, Properties: map[string]string{variant.ReadPolicyKey: p}}
			got := sameVariantReads(t, filepath.Base(path)+" "+p, path, opts)
			batched += got.batched
			if got.err != "" {
				failed++
			}
		}
	}
	t.Logf("%d files, %d rows read column-wise, %d reads failed alike", len(files), batched, failed)
	if batched == 0 || failed == 0 {
		t.Errorf("%d rows read column-wise, %d reads failed: the comparison proves little", batched, failed)
	}
}

// TestVariantColumnsMatchRowsOnCorruptPages: the same where the change is
// in a page's levels or values and the page's checksum fits it (a forger
// can compute one too), so that the pages reach the assembly: uncompressed
// seeds, every third byte of every page.
func TestVariantColumnsMatchRowsOnCorruptPages(t *testing.T) {
	dir := t.TempDir()
	failed, tried := 0, 0
	for s, seed := range variantReadSeeds(t, dir, map[string]string{PropCompressionCodec: "uncompressed"}) {
		for i, corrupt := range pageMutations(t, seed, 3) {
			path := filepath.Join(dir, "corrupt.parquet")
			if err := os.WriteFile(path, corrupt, 0o644); err != nil {
				t.Fatal(err)
			}
			got := sameVariantReads(t, fmt.Sprintf("seed %d, mutation %d", s, i), path, registry.ReadOptions{CaseSensitive: true})
			tried++
			if got.err != "" {
				failed++
			}
		}
	}
	t.Logf("%d page mutations, %d reads failed alike", tried, failed)
	if tried < 500 || failed < 20 {
		t.Errorf("%d page mutations, %d failed reads: the comparison proves little", tried, failed)
	}
}

// pageMutations are copies of raw, an uncompressed file, each with one
// byte of a page's body changed, every step-th, and the page's checksum
// made to fit where the header keeps its length.
func pageMutations(t testing.TB, raw []byte, step int) [][]byte {
	t.Helper()
	var out [][]byte
	for _, p := range filePages(t, raw) {
		for i := int64(0); i < p.size; i += int64(step) {
			m := bytes.Clone(raw)
			m[p.at+i] ^= 0x5a
			if refitChecksum(m, p) {
				out = append(out, m)
			}
		}
	}
	return out
}

// refitChecksums gives every page of m, a file of pages a changed byte
// left in place, the checksum its body has now; false when a header would
// change its length.
func refitChecksums(t testing.TB, m []byte) bool {
	t.Helper()
	for _, p := range filePages(t, m) {
		if !refitChecksum(m, p) {
			return false
		}
	}
	return true
}

// filePage is a page of a file: its header at pos, n bytes long, and its
// body of size bytes at at.
type filePage struct {
	h             format.PageHeader
	pos, at, size int64
	n             int
}

func filePages(t testing.TB, raw []byte) []filePage {
	t.Helper()
	pf, err := pq.OpenFile(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	var out []filePage
	for _, rg := range pf.Metadata().RowGroups {
		for _, cc := range rg.Columns {
			start, end := pages.ChunkBounds(&cc.MetaData)
			for pos := start; pos < end; {
				h, n, err := pages.DecodeHeader(raw[pos:])
				if err != nil {
					t.Fatal(err)
				}
				p := filePage{h: h, pos: pos, at: pos + int64(n), size: int64(h.CompressedPageSize), n: n}
				out = append(out, p)
				pos = p.at + p.size
			}
		}
	}
	return out
}

// refitChecksum sets p's checksum in m to its body's, if the header keeps
// its length.
func refitChecksum(m []byte, p filePage) bool {
	h := p.h
	h.CRC = int32(crc32.ChecksumIEEE(m[p.at : p.at+p.size]))
	hb, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
	if err != nil || len(hb) != p.n {
		return false
	}
	copy(m[p.pos:], hb)
	return true
}

// FuzzVariantColumnsMatchRows holds the column-wise assembly to the row
// path's values and errors on any file.
func FuzzVariantColumnsMatchRows(f *testing.F) {
	for _, seed := range variantReadSeeds(f, f.TempDir(), nil) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.parquet")
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		_ = testenv.ErrWithin(t, 20*time.Second, func() error {
			sameVariantReads(t, "fuzz", path, registry.ReadOptions{CaseSensitive: true})
			return nil
		})
	})
}

// TestReadRefusesAByteArrayPastItsPage: a string whose length prefix is
// forged to run past its page, the checksum made to fit, is refused by
// the record reader naming the page, where parquet-go alone hands out the
// bytes past the page as the string.
func TestReadRefusesAByteArrayPastItsPage(t *testing.T) {
	sc := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "s", Type: iceberg.PrimitiveTypes.String, Required: true})
	var records []*data.Record
	for i := range 50 {
		records = append(records, data.Of(sc, fmt.Sprintf("value-%03d", i)))
	}
	path := filepath.Join(t.TempDir(), "s.parquet")
	writeVariantRecords(t, path, sc, map[string]string{PropCompressionCodec: "uncompressed"}, records)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The last value in the page, after its length prefix (the page
	// header's statistics and the footer's hold it too, without one).
	last := []byte("value-049")
	at := bytes.Index(raw, append(binary.LittleEndian.AppendUint32(nil, uint32(len(last))), last...)) + 4
	if at < 4 {
		t.Fatal("the page holds no length-prefixed last value")
	}
	forged := 0
	// Lengths from one past the page's values, which parquet-go's decoder
	// accepts and reads past the page for, up to the lengths it refuses.
	for _, n := range []int{len(last) + 1, len(last) + 40, len(last) + 300, 1 << 20} {
		m := bytes.Clone(raw)
		binary.LittleEndian.PutUint32(m[at-4:], uint32(n))
		if !refitChecksums(t, m) {
			continue
		}
		forged++
		p := filepath.Join(t.TempDir(), "forged.parquet")
		if err := os.WriteFile(p, m, 0o644); err != nil {
			t.Fatal(err)
		}
		err := readAll(t, p)
		if err == nil || !strings.Contains(err.Error(), "runs past") && !strings.Contains(err.Error(), "declares") {
			t.Errorf("forged length %d: read gave %v", n, err)
		}
	}
	if forged < 2 {
		t.Fatalf("only %d forged lengths kept their page headers' lengths", forged)
	}
}

// readAll reads every row of path and returns the error that ends the
// read, nil at its end.
func readAll(t testing.TB, path string) error {
	r, err := newRecordReader(registry.LocalInput(path), registry.ReadOptions{CaseSensitive: true})
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		if _, err := r.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
