package parquet

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry"
)

var aheadSchema = iceberg.NewSchema(0,
	iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int32, Required: true},
	iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
)

// aheadFile writes rows records in row groups of perGroup rows.
func aheadFile(t testing.TB, rows, perGroup int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "groups.parquet")
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Schema(aheadSchema).Set(PropRowGroupRows, strconv.Itoa(perGroup)).Build()
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		r := data.NewRecord(aheadSchema)
		r.Set(0, int32(i*7))
		if i%3 != 0 {
			r.Set(1, fmt.Sprintf("name-%d", i))
		}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// aheadIDs projects aheadSchema to its id column.
var aheadIDs = iceberg.NewSchema(0, aheadSchema.Field(0))

// buildReader is the record reader of path, projected to project when
// not nil, with reused containers when reuse.
func buildReader(path string, project *iceberg.Schema, reuse bool) (*recordReader, error) {
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, registry.LocalInput(path))
	if err != nil {
		return nil, err
	}
	if project != nil {
		b.Project(project)
	}
	if reuse {
		b.ReuseContainers()
	}
	r, err := b.Build()
	if err != nil {
		return nil, err
	}
	return r.(*recordReader), nil
}

// eachAhead reads path (projected to project when not nil; reused
// containers when reuse) with checking ahead on or off, handing each
// record to fn, and returns the error that ended the read: io.EOF at the
// end.
func eachAhead(path string, project *iceberg.Schema, on, reuse bool, fn func(*data.Record)) error {
	defer func(old bool) { checkAheadOn = old }(checkAheadOn)
	checkAheadOn = on
	r, err := buildReader(path, project, reuse)
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err != nil {
			return err
		}
		fn(rec)
	}
}

// readAhead is eachAhead collecting copies of the records read before the
// first error, and that error (nil at the end).
func readAhead(t testing.TB, path string, project *iceberg.Schema, on bool) ([]*data.Record, error) {
	t.Helper()
	var out []*data.Record
	err := eachAhead(path, project, on, false, func(r *data.Record) { out = append(out, r.Copy()) })
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return out, err
}

func sameRecords(t *testing.T, what string, got, want []*data.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Fatalf("%s: record %d = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// TestCheckAheadReadsAlike: with the next row group checked ahead, a read
// returns what it returns with every check inline, whole and projected.
func TestCheckAheadReadsAlike(t *testing.T) {
	path := aheadFile(t, 1000, 97)
	for _, project := range []*iceberg.Schema{nil, aheadIDs} {
		want, werr := readAhead(t, path, project, false)
		got, gerr := readAhead(t, path, project, true)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Fatalf("errors: ahead %v, inline %v", gerr, werr)
		}
		sameRecords(t, "ahead", got, want)
		if len(want) != 1000 {
			t.Fatalf("%d records, want 1000", len(want))
		}
	}
}

// TestCheckAheadKeepsEarlierRows: a damaged page in row group 5 is reported
// after every row of groups 0-4, with the same error as with every check
// inline (parquet-go's CRC check, the first to meet it); a reader closed
// while a check runs ahead waits for it.
func TestCheckAheadKeepsEarlierRows(t *testing.T) {
	const perGroup = 100
	for _, tc := range []struct {
		name string
		at   func(md format.ColumnMetaData) int64
		want string
	}{
		// A byte in the middle of the chunk: its page no longer matches
		// its CRC, which parquet-go checks as it reads the page.
		{"body", func(md format.ColumnMetaData) int64 { return md.DataPageOffset + md.TotalCompressedSize/2 }, "checksum mismatch"},
		// The first page's header: the chunk check refuses it before
		// parquet-go reads the group.
		{"header", func(md format.ColumnMetaData) int64 { return md.DataPageOffset + 1 }, "row group 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := aheadFile(t, 1000, perGroup)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			st, _ := f.Stat()
			pf, err := pq.OpenFile(f, st.Size())
			if err != nil {
				t.Fatal(err)
			}
			md := pf.Metadata().RowGroups[5].Columns[0].MetaData
			f.Close()
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			raw[tc.at(md)] ^= 0xff
			if err := os.WriteFile(path, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			want, werr := readAhead(t, path, nil, false)
			got, gerr := readAhead(t, path, nil, true)
			if werr == nil || gerr == nil || werr.Error() != gerr.Error() || !strings.Contains(werr.Error(), tc.want) {
				t.Fatalf("errors: ahead %v, inline %v; want the same, with %q", gerr, werr, tc.want)
			}
			if len(want) != 5*perGroup {
				t.Fatalf("inline: %d records before the error, want %d", len(want), 5*perGroup)
			}
			sameRecords(t, "ahead", got, want)
		})
	}
	path := aheadFile(t, 1000, perGroup)
	r, err := buildReader(path, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkCheckAhead reads one int column of 200,000 rows in 10 row groups
// with reused containers, as a scan does, with the next group's chunks
// checked ahead and with every check inline.
func BenchmarkCheckAhead(b *testing.B) {
	path := aheadFile(b, 200_000, 20_000)
	for _, on := range []bool{true, false} {
		b.Run(fmt.Sprintf("ahead=%v", on), func(b *testing.B) {
			for b.Loop() {
				n := 0
				if err := eachAhead(path, aheadIDs, on, true, func(*data.Record) { n++ }); !errors.Is(err, io.EOF) || n != 200_000 {
					b.Fatalf("%d records, %v", n, err)
				}
			}
		})
	}
}
