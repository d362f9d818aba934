package inspect

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"

	"github.com/coltype-lab/lab/formats/parquet/footer"
)

type smallRow struct {
	ID   int64  `parquet:"id"`
	Name string `parquet:"name"`
}

// manyRowGroups writes a valid Parquet file of n row groups of one row each:
// the pages of a one-row file written by parquet-go, repeated n times, under
// a footer that points every row group at its own copy. Ordinals are left
// out (parquet-go requires them to match positions, which an int16 cannot
// past 32,767). It returns the path and the footer's length.
func manyRowGroups(t testing.TB, n int) (string, int) {
	t.Helper()
	src := writeParquet(t, []smallRow{{ID: 1, Name: "alpha"}})
	f := readFooter(t, src)
	rg0 := f.Meta.RowGroups[0]
	const start = 4 // the pages follow the leading magic
	chunk := src[start:f.Offset]
	file := make([]byte, 0, 4+n*len(chunk)+160*n)
	file = append(file, "PAR1"...)
	meta := *f.Meta
	meta.RowGroups = make([]footer.RowGroup, n)
	for i := range n {
		shift := int64(len(file)) - start
		file = append(file, chunk...)
		rg := footer.RowGroup{NumRows: rg0.NumRows, TotalByteSize: rg0.TotalByteSize,
			FileOffset: thrift.New(start + shift), TotalCompressedSize: thrift.New(int64(len(chunk)))}
		for _, cc := range rg0.Columns {
			md := *cc.MetaData
			md.DataPageOffset += shift
			if md.DictionaryPageOffset.Valid {
				md.DictionaryPageOffset = thrift.New(md.DictionaryPageOffset.V + shift)
			}
			rg.Columns = append(rg.Columns, footer.ColumnChunk{FileOffset: cc.FileOffset + shift, MetaData: &md})
		}
		meta.RowGroups[i] = rg
	}
	meta.NumRows = int64(n) * rg0.NumRows
	raw, err := footer.Encode(&meta)
	if err != nil {
		t.Fatal(err)
	}
	file = append(file, raw...)
	file = binary.LittleEndian.AppendUint32(file, uint32(len(raw)))
	file = append(file, "PAR1"...)
	path := filepath.Join(t.TempDir(), "row-groups.parquet")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, len(raw)
}

// TestInspectManyRowGroups: a footer of 100,000 row groups (about 15 MB)
// is inspected at the cost of what the report prints. Before the report
// was bounded, inspecting it allocated about 300 MB in 3.4 million
// allocations, and printing it to a file took 15 s of small writes.
func TestInspectManyRowGroups(t *testing.T) {
	const n = 100_000
	path, footerLen := manyRowGroups(t, n)

	// The file is valid: parquet-go opens it and reads its last row group.
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatalf("parquet-go: %v", err)
	}
	rows := make([]parquet.Row, 2)
	got, _ := pf.RowGroups()[n-1].Rows().ReadRows(rows)
	if got != 1 || rows[0][0].Int64() != 1 || rows[0][1].String() != "alpha" {
		t.Fatalf("last row group holds %d rows: %v", got, rows[:got])
	}
	raw, pf = nil, nil

	dir := t.TempDir()
	textOut, jsonOut := filepath.Join(dir, "report.txt"), filepath.Join(dir, "report.json")
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	began := time.Now()
	rep, err := InspectFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// To files, as lab inspect writes to a redirected stdout: unbuffered.
	for out, write := range map[string]func(*os.File) error{
		textOut: func(f *os.File) error { return rep.WriteText(f) },
		jsonOut: func(f *os.File) error { return rep.WriteJSON(f) },
	} {
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := write(f); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	took := time.Since(began)
	runtime.ReadMemStats(&after)
	t.Logf("%d row groups, %d-byte footer: %v, %d bytes in %d allocations", n, footerLen, took,
		after.TotalAlloc-before.TotalAlloc, after.Mallocs-before.Mallocs)

	// The footer is read and decode keeps a copy: twice its size, plus
	// what 20 row groups need. Four times the footer leaves room.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*uint64(footerLen) {
		t.Errorf("inspecting %d row groups allocated %d bytes, more than 4 x the %d-byte footer", n, alloc, footerLen)
	}
	// How many allocations does not depend on the number of row groups.
	if mallocs := after.Mallocs - before.Mallocs; mallocs > 50_000 {
		t.Errorf("inspecting %d row groups took %d allocations, more than 50,000", n, mallocs)
	}
	// About 0.3 s; the bound leaves room for a loaded two-core machine.
	if took > 10*time.Second {
		t.Errorf("inspecting and printing took %v, more than 10 s", took)
	}

	if rep.NumRowGroups != n || rep.RowGroupsOmitted != n-DefaultRowGroups || len(rep.RowGroups) != DefaultRowGroups || rep.NumRows != n {
		t.Fatalf("report: %d row groups, %d omitted, %d held, %d rows", rep.NumRowGroups, rep.RowGroupsOmitted, len(rep.RowGroups), rep.NumRows)
	}
	for i, rg := range rep.RowGroups {
		if rg.Index != i || rg.NumRows != 1 || len(rg.Columns) != 2 {
			t.Errorf("row group %d: index %d, %d rows, %d columns", i, rg.Index, rg.NumRows, len(rg.Columns))
		}
	}
	text, err := os.ReadFile(textOut)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"rows           100000 in 100000 row groups, 2 columns",
		"\nrow group 19: 1 rows",
		"\nrow groups 20-99999 not shown (99980 of 100000): --row-groups all shows every one, --row-groups FIRST-LAST a range\n",
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("text report lacks %q", want)
		}
	}
	if strings.Contains(string(text), "row group 20:") {
		t.Error("text report shows row group 20")
	}
	var doc struct {
		NumRowGroups     int `json:"num_row_groups"`
		RowGroupsOmitted int `json:"row_groups_omitted"`
		RowGroups        []struct {
			Index int `json:"index"`
		} `json:"row_groups"`
	}
	b, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.NumRowGroups != n || doc.RowGroupsOmitted != n-DefaultRowGroups || len(doc.RowGroups) != DefaultRowGroups || doc.RowGroups[19].Index != 19 {
		t.Errorf("JSON: num_row_groups %d, row_groups_omitted %d, %d row groups", doc.NumRowGroups, doc.RowGroupsOmitted, len(doc.RowGroups))
	}

	t.Run("range", func(t *testing.T) {
		for _, tc := range []struct {
			sel         RowGroupRange
			first, held int
			line        string
		}{
			{RowGroupRange{First: 500, Count: 10}, 500, 10, "row groups 0-499 and 510-99999 not shown (99990 of 100000)"},
			{RowGroupRange{First: 99_990, Count: -1}, 99_990, 10, "row groups 0-99989 not shown (99990 of 100000)"},
			{RowGroupRange{First: 7, Count: 1}, 7, 1, "row groups 0-6 and 8-99999 not shown (99999 of 100000)"},
			{RowGroupRange{First: 99_999, Count: 5}, 99_999, 1, "row groups 0-99998 not shown (99999 of 100000)"},
		} {
			rep, err := InspectFile(path, Options{RowGroups: tc.sel})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.RowGroups) != tc.held || rep.RowGroups[0].Index != tc.first || rep.RowGroupsOmitted != n-tc.held {
				t.Errorf("%+v: %d row groups from %d, %d omitted", tc.sel, len(rep.RowGroups), rep.RowGroups[0].Index, rep.RowGroupsOmitted)
			}
			var out strings.Builder
			if err := rep.WriteText(&out); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "\n"+tc.line+":") {
				t.Errorf("%+v: text lacks %q", tc.sel, tc.line)
			}
		}
	})
	t.Run("out of range", func(t *testing.T) {
		_, err := InspectFile(path, Options{RowGroups: RowGroupRange{First: n, Count: 1}})
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "row group 100000 does not exist: the file has 100000 (0-99999)") {
			t.Errorf("error %v, want one naming the file and its row groups", err)
		}
	})
}

// TestInspectAllRowGroups: with every row group selected the report is
// complete, and WriteJSON, which streams the row groups, writes what
// json.MarshalIndent writes for the whole report.
func TestInspectAllRowGroups(t *testing.T) {
	path, _ := manyRowGroups(t, 300)
	rep, err := InspectFile(path, Options{RowGroups: AllRowGroups})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.RowGroups) != 300 || rep.RowGroupsOmitted != 0 || rep.NumRowGroups != 300 || rep.RowGroups[299].Index != 299 {
		t.Fatalf("%d row groups of %d, %d omitted", len(rep.RowGroups), rep.NumRowGroups, rep.RowGroupsOmitted)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "not shown") || !strings.Contains(text.String(), "\nrow group 299: ") {
		t.Error("the complete text report says row groups are left out, or lacks the last")
	}
	// The full footer, reported with every row group, is the same report.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fromFull, err := FromFooter(readFooter(t, data), Options{Name: path, RowGroups: AllRowGroups})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Report{rep, fromFull, inspectBytes(t, data, Options{Name: path}), inspectBytes(t, writeParquet(t, rows()), Options{})} {
		var streamed bytes.Buffer
		if err := r.WriteJSON(&streamed); err != nil {
			t.Fatal(err)
		}
		whole, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(streamed.Bytes(), append(whole, '\n')) {
			t.Errorf("WriteJSON of %d row groups differs from json.MarshalIndent", len(r.RowGroups))
		}
	}
	if a, b := mustJSON(t, rep), mustJSON(t, fromFull); a != b {
		t.Error("the report of a windowed read differs from the report of the full footer")
	}
	// A footer read with a window reports within it, and refuses more.
	f, err := footer.ReadFooterRowGroups(bytes.NewReader(data), int64(len(data)), footer.RowGroupWindow{First: 10, Count: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := FromFooter(f, Options{RowGroups: RowGroupRange{First: 11, Count: 2}}); err != nil || len(r.RowGroups) != 2 || r.RowGroups[0].Index != 11 {
		t.Errorf("within the window: %v", err)
	}
	if _, err := FromFooter(f, Options{}); err == nil || !strings.Contains(err.Error(), "read with row groups 10-14, not 0-19") {
		t.Errorf("outside the window: %v", err)
	}
}

func mustJSON(t *testing.T, r *Report) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseRowGroupRange(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want RowGroupRange
	}{
		{"", RowGroupRange{}},
		{"all", AllRowGroups},
		{"0", RowGroupRange{First: 0, Count: 1}},
		{"7", RowGroupRange{First: 7, Count: 1}},
		{"5-9", RowGroupRange{First: 5, Count: 5}},
		{"3-3", RowGroupRange{First: 3, Count: 1}},
		{"20-", RowGroupRange{First: 20, Count: -1}},
	} {
		got, err := ParseRowGroupRange(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseRowGroupRange(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"-1", "9-5", "x", "1-2-3", "+3", " 3", "3 ", "-", "ALL", "1-x"} {
		if got, err := ParseRowGroupRange(bad); err == nil || !strings.Contains(err.Error(), "want all, N, FIRST-LAST or FIRST-") {
			t.Errorf("ParseRowGroupRange(%q) = %+v, %v; want an error", bad, got, err)
		}
	}
}
