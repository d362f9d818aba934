package httpio

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

type parquetRow struct {
	ID    int64   `parquet:"id"`
	Name  string  `parquet:"name"`
	Score float64 `parquet:"score"`
}

// TestParquetOverHTTP reads a Parquet file the way a table scan would: the
// size from Stat, then ranged reads of the footer and the column chunks.
func TestParquetOverHTTP(t *testing.T) {
	tests := []struct {
		name      string
		rows      int
		rowGroups int
	}{
		{"one row group", 5, 1},
		{"three row groups", 3000, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := make([]parquetRow, tt.rows)
			for i := range want {
				want[i] = parquetRow{ID: int64(i), Name: fmt.Sprintf("row-%d", i), Score: float64(i) / 4}
			}
			var buf bytes.Buffer
			w := parquet.NewGenericWriter[parquetRow](&buf)
			per := (tt.rows + tt.rowGroups - 1) / tt.rowGroups
			for start := 0; start < tt.rows; start += per {
				if _, err := w.Write(want[start:min(start+per, tt.rows)]); err != nil {
					t.Fatal(err)
				}
				if err := w.Flush(); err != nil { // ends the row group
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			srv, log := serve(t, &object{data: buf.Bytes(), etag: `"pq1"`, modTime: time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)})

			f := mustOpen(t, &FS{}, srv.URL+"/warehouse/db/t/data/00000-0.parquet")
			fi, err := f.Stat()
			if err != nil || fi.Size() != int64(buf.Len()) {
				t.Fatalf("Stat = %v, %v; want size %d", fi, err, buf.Len())
			}
			pf, err := parquet.OpenFile(f, fi.Size())
			if err != nil {
				t.Fatal(err)
			}
			if pf.NumRows() != int64(tt.rows) || len(pf.RowGroups()) != tt.rowGroups {
				t.Fatalf("%d rows in %d row groups; want %d in %d", pf.NumRows(), len(pf.RowGroups()), tt.rows, tt.rowGroups)
			}
			r := parquet.NewGenericReader[parquetRow](pf)
			got := make([]parquetRow, tt.rows+1)
			n, err := r.Read(got)
			if err != nil && err != io.EOF {
				t.Fatal(err)
			}
			if n != tt.rows {
				t.Fatalf("read %d rows; want %d", n, tt.rows)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("row %d = %+v; want %+v", i, got[i], want[i])
				}
			}
			// Every read was a pinned range request; nothing fetched the
			// whole file in one go.
			for _, req := range log.all()[1:] {
				if req.Method != "GET" || !strings.HasPrefix(req.Range, "bytes=") || req.IfRange != `"pq1"` {
					t.Errorf("request %v; want a ranged GET with If-Range \"pq1\"", req)
				}
				if req.Range == fmt.Sprintf("bytes=0-%d", buf.Len()-1) {
					t.Errorf("request %v asked for the whole file", req)
				}
			}
		})
	}
}
