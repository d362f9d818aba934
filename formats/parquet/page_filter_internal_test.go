package parquet

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/internal/iocount"
	"github.com/coltype-lab/lab/registry"
)

// pagedVariantFile writes rows rows of (id, v, tags) in one row group of
// small pages. v is {"user": {"id": 1e6+i}, "ts": i, "pad": …}, except
// for a few of the first 1000 rows: user is a string (the user pair's
// residual holds the path's parent) or user.id is a string (the id pair's
// residual).
func pagedVariantFile(t testing.TB, rows, pageBytes int) (string, *iceberg.Schema) {
	t.Helper()
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.VariantType{}},
		iceberg.NestedField{ID: 3, Name: "tags", Type: &iceberg.ListType{ElementID: 4, Element: iceberg.PrimitiveTypes.String, ElementRequired: true}},
	)
	path := t.TempDir() + "/paged.parquet"
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(sc).SetAll(map[string]string{PropShredVariants: "true", PropPageBytes: fmt.Sprint(pageBytes)}).Overwrite().Build()
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		js := fmt.Sprintf(`{"user": {"id": %d}, "ts": %d, "pad": "row %d"}`, 1_000_000+i, i, i)
		switch {
		case i < 1000 && i%331 == 205:
			js = fmt.Sprintf(`{"user": "anonymous", "ts": %d}`, i)
		case i < 1000 && i%479 == 300:
			js = fmt.Sprintf(`{"user": {"id": "u%d"}, "ts": %d}`, i, i)
		}
		v, err := pvariant.ParseJSON(js, false)
		if err != nil {
			t.Fatal(err)
		}
		tags := []any{fmt.Sprint("t", i%7), fmt.Sprint("r", i)}
		if err := w.Write(data.Of(sc, int64(i), v, tags)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path, sc
}

// readAllOf reads every record of in with opts and the bytes it took.
func readAllOf(t *testing.T, path string, opts registry.ReadOptions) ([]*data.Record, int64) {
	t.Helper()
	counter := &iocount.FS{}
	r, err := newRecordReader(registry.InputFile{FS: counter, Location: path}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []*data.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, counter.Bytes()
		}
		if err != nil {
			t.Fatalf("row %d: %v", len(out), err)
		}
		out = append(out, rec)
	}
}

func userID(v pvariant.Value) (int64, bool) {
	at := lookupRaw(v, []string{"user", "id"})
	if at.Bytes() == nil {
		return 0, false
	}
	lit, ok := iceberg.CastVariantLiteral(at, iceberg.PrimitiveTypes.Int64)
	if !ok {
		return 0, false
	}
	return lit.Any().(int64), true
}

// TestPagePruning: inside the one row group, the reader reads only the
// row ranges whose pages might match, on plain columns and on a shredded
// variant path. Every row it returns is the file's row at its position,
// in every column; no matching row is left out, the ones a residual holds
// included; and it reads fewer bytes than the whole file.
func TestPagePruning(t *testing.T) {
	const rows = 4000
	path, sc := pagedVariantFile(t, rows, 2048)
	all, fullBytes := readAllOf(t, path, registry.ReadOptions{CaseSensitive: true})
	if len(all) != rows {
		t.Fatalf("full read: %d rows, want %d", len(all), rows)
	}
	withPos := iceberg.NewSchema(0, append(slices.Clone(sc.Fields()),
		iceberg.NestedField{ID: registry.RowPositionFieldID, Name: "_pos", Type: iceberg.PrimitiveTypes.Int64, Required: true})...)
	noTags := iceberg.NewSchema(0, sc.Field(0), sc.Field(1),
		iceberg.NestedField{ID: registry.RowPositionFieldID, Name: "_pos", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	extract := iceberg.Extract(iceberg.Reference("v"), "$.user.id", iceberg.PrimitiveTypes.Int64)
	id := iceberg.Reference("id")
	for _, c := range []struct {
		name   string
		expr   iceberg.BooleanExpression
		proj   *iceberg.Schema
		match  func(i int, v pvariant.Value) bool
		pruned bool // fewer rows than the file's are read
	}{
		{"path >= 1003500", iceberg.GreaterThanEqual(extract, int64(1_003_500)), noTags,
			func(_ int, v pvariant.Value) bool { x, ok := userID(v); return ok && x >= 1_003_500 }, true},
		{"path = 1002000 and id >= 0", iceberg.NewAnd(iceberg.EqualTo(extract, int64(1_002_000)), iceberg.GreaterThanEqual(id, int64(0))), noTags,
			func(_ int, v pvariant.Value) bool { x, ok := userID(v); return ok && x == 1_002_000 }, true},
		{"id < 300 or id > 3800", iceberg.NewOr(iceberg.LessThan(id, int64(300)), iceberg.GreaterThan(id, int64(3800))), noTags,
			func(i int, _ pvariant.Value) bool { return i < 300 || i > 3800 }, true},
		{"id in the middle", iceberg.NewAnd(iceberg.GreaterThan(id, int64(1500)), iceberg.LessThan(id, int64(1600))), noTags,
			func(i int, _ pvariant.Value) bool { return i > 1500 && i < 1600 }, true},
		{"no row", iceberg.GreaterThan(id, int64(rows)), noTags, func(int, pvariant.Value) bool { return false }, true},
		// A repeated column of data page v1 cannot be sought by rows:
		// its row group is read whole.
		{"with a list column", iceberg.GreaterThan(id, int64(3800)), withPos,
			func(i int, _ pvariant.Value) bool { return i > 3800 }, false},
	} {
		got, n := readAllOf(t, path, registry.ReadOptions{CaseSensitive: true, Filter: c.expr, Projection: c.proj})
		seen := map[int64]bool{}
		for _, rec := range got {
			i := rec.Get(0).(int64)
			pos := rec.Get(len(rec.Struct().FieldList) - 1).(int64)
			if pos != i {
				t.Fatalf("%s: row with id %d has _pos %d", c.name, i, pos)
			}
			want := all[i]
			if v, w := rec.Get(1).(pvariant.Value), want.Get(1).(pvariant.Value); !bytes.Equal(v.Bytes(), w.Bytes()) || !bytes.Equal(v.Metadata().Bytes(), w.Metadata().Bytes()) {
				t.Fatalf("%s: row %d: variant %s, the file's row %d has %s", c.name, i, v, i, w)
			}
			if c.proj == withPos && !slices.Equal(rec.Get(2).([]any), want.Get(2).([]any)) {
				t.Fatalf("%s: row %d: tags %v, want %v", c.name, i, rec.Get(2), want.Get(2))
			}
			seen[i] = true
		}
		matches := 0
		for i, rec := range all {
			if c.match(i, rec.Get(1).(pvariant.Value)) {
				matches++
				if !seen[int64(i)] {
					t.Errorf("%s: matching row %d was pruned", c.name, i)
				}
			}
		}
		switch {
		case c.pruned && (len(got) >= rows || n >= fullBytes):
			t.Errorf("%s: read %d rows and %d bytes of the file's %d and %d: pages were not pruned", c.name, len(got), n, rows, fullBytes)
		case !c.pruned && len(got) != rows:
			t.Errorf("%s: %d rows, want the row group's %d", c.name, len(got), rows)
		}
		t.Logf("%s: %d matching, %d rows read, %d of %d bytes", c.name, matches, len(got), n, fullBytes)
	}
}

// TestPagePruningDistrustsAWrongIndex: an offset index whose first rows
// disagree with the page headers is not sought by; the row group is read
// whole and every row is right.
func TestPagePruningDistrustsAWrongIndex(t *testing.T) {
	const rows = 2000
	path, sc := pagedVariantFile(t, rows, 2048)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := openParquet(registry.LocalInput(path))
	if err != nil {
		t.Fatal(err)
	}
	cc := f.meta.RowGroups[0].Columns[0]
	f.Close()
	at, size := cc.OffsetIndexOffset, int64(cc.OffsetIndexLength)
	var oi format.OffsetIndex
	if err := thrift.Unmarshal(&thrift.CompactProtocol{}, raw[at:at+size], &oi); err != nil {
		t.Fatal(err)
	}
	if len(oi.PageLocations) < 4 {
		t.Fatalf("id has %d pages; the test needs 4", len(oi.PageLocations))
	}
	// Two pages trade first rows: the same bytes, wrong rows.
	p := oi.PageLocations
	p[1].FirstRowIndex, p[2].FirstRowIndex = p[2].FirstRowIndex, p[1].FirstRowIndex
	b, err := thrift.Marshal(&thrift.CompactProtocol{}, &oi)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(b)) != size {
		t.Fatalf("re-encoded offset index is %d bytes, was %d", len(b), size)
	}
	copy(raw[at:], b)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	proj := iceberg.NewSchema(0, sc.Field(0), iceberg.NestedField{ID: registry.RowPositionFieldID, Name: "_pos", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	got, _ := readAllOf(t, path, registry.ReadOptions{CaseSensitive: true, Projection: proj,
		Filter: iceberg.GreaterThan(iceberg.Reference("id"), int64(1900))})
	if len(got) != rows {
		t.Fatalf("%d rows, want the whole row group's %d", len(got), rows)
	}
	for i, rec := range got {
		if rec.Get(0) != int64(i) || rec.Get(1) != int64(i) {
			t.Fatalf("row %d is (id %v, _pos %v)", i, rec.Get(0), rec.Get(1))
		}
	}
}

// FuzzPagePruning mutates a file of small pages with a page index and
// reads it whole and with filters that prune pages. Neither read may
// panic, and where both succeed every row the filtered read returns must
// be the whole read's row at its position: a page index that lies must
// not give one column's values to another column's row.
func FuzzPagePruning(f *testing.F) {
	path, sc := pagedVariantFile(f, 400, 512)
	seed, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed, uint16(0), byte(0))
	mf, err := openParquet(registry.LocalInput(path))
	if err != nil {
		f.Fatal(err)
	}
	for _, cc := range mf.meta.RowGroups[0].Columns {
		// Seeds that flip a byte of each page index.
		f.Add(seed, uint16(cc.OffsetIndexOffset+int64(cc.OffsetIndexLength)/2), byte(1))
		f.Add(seed, uint16(cc.ColumnIndexOffset+int64(cc.ColumnIndexLength)/2), byte(0x80))
	}
	mf.Close()
	pos := iceberg.NestedField{ID: registry.RowPositionFieldID, Name: "_pos", Type: iceberg.PrimitiveTypes.Int64, Required: true}
	proj := iceberg.NewSchema(0, sc.Field(0), sc.Field(1), pos)
	extract := iceberg.Extract(iceberg.Reference("v"), "$.user.id", iceberg.PrimitiveTypes.Int64)
	filters := []iceberg.BooleanExpression{
		iceberg.GreaterThan(iceberg.Reference("id"), int64(300)),
		iceberg.GreaterThanEqual(extract, int64(1_000_250)),
	}
	f.Fuzz(func(t *testing.T, raw []byte, at uint16, flip byte) {
		raw = bytes.Clone(raw)
		if int(at) < len(raw) {
			raw[at] ^= flip
		}
		p := t.TempDir() + "/fuzz.parquet"
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		whole, err := tryReadAll(p, registry.ReadOptions{CaseSensitive: true, Projection: proj})
		for _, expr := range filters {
			got, ferr := tryReadAll(p, registry.ReadOptions{CaseSensitive: true, Projection: proj, Filter: expr})
			if ferr != nil || err != nil {
				continue
			}
			for _, rec := range got {
				at, ok := rec.Get(2).(int64)
				if !ok || at < 0 || at >= int64(len(whole)) {
					t.Fatalf("filter %s: row at _pos %v of %d rows", expr, rec.Get(2), len(whole))
				}
				want := whole[at]
				v, w := rec.Get(1), want.Get(1)
				if rec.Get(0) != want.Get(0) || !sameVariant(v, w) {
					t.Fatalf("filter %s: row at _pos %d is (%v, %v), the whole read has (%v, %v)", expr, at, rec.Get(0), v, want.Get(0), w)
				}
			}
		}
	})
}

// sameVariant compares two record values of a variant column by their
// bytes (nil for a null).
func sameVariant(a, b any) bool {
	va, aok := a.(pvariant.Value)
	vb, bok := b.(pvariant.Value)
	if !aok || !bok {
		return a == nil && b == nil
	}
	return bytes.Equal(va.Bytes(), vb.Bytes()) && bytes.Equal(va.Metadata().Bytes(), vb.Metadata().Bytes())
}

// tryReadAll reads every record of path, copied, or the first error.
func tryReadAll(path string, opts registry.ReadOptions) ([]*data.Record, error) {
	r, err := newRecordReader(registry.LocalInput(path), opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []*data.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
}
