package parquet_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"
)

// parquetTestData is the apache/parquet-testing checkout named by
// $PARQUET_TEST_DATA; tests skip without it unless LAB_REQUIRE_TESTDATA=1.
func parquetTestData(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("PARQUET_TEST_DATA")
	if dir == "" {
		if os.Getenv("LAB_REQUIRE_TESTDATA") == "1" {
			t.Fatal("PARQUET_TEST_DATA is not set and LAB_REQUIRE_TESTDATA=1")
		}
		t.Skip("set PARQUET_TEST_DATA to an apache/parquet-testing checkout (git clone https://github.com/apache/parquet-testing) to run this test")
	}
	return dir
}

// TestRecordReadsParquetTesting reads every file of parquet-testing: each
// read ends in records or in an error naming the file, never a panic; files
// with field ids yield as many records as their footer has rows.
func TestRecordReadsParquetTesting(t *testing.T) {
	dir := parquetTestData(t)
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".parquet") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no .parquet files under %s", dir)
	}
	for _, path := range files {
		t.Run(strings.TrimPrefix(path, dir), func(t *testing.T) {
			recs, err := tryReadRecords(path, nil)
			if err != nil {
				if !strings.Contains(err.Error(), path) {
					t.Errorf("error %v does not name the file", err)
				}
				return
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, _ := f.Stat()
			pf, err := pq.OpenFile(f, st.Size())
			if err != nil {
				return // parquet-go itself cannot open it; our reader did
			}
			if int64(len(recs)) != pf.NumRows() {
				t.Errorf("read %d records, footer has %d rows", len(recs), pf.NumRows())
			}
		})
	}
}
