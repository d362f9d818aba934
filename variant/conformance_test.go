package variant

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/parquet-go/parquet-go"
)

// shreddedCase is one entry of parquet-testing's shredded_variant/cases.json.
type shreddedCase struct {
	Number       int       `json:"case_number"`
	Test         string    `json:"test"`
	ParquetFile  string    `json:"parquet_file"`
	VariantFile  string    `json:"variant_file"`
	VariantFiles []*string `json:"variant_files"`
	ErrorMessage string    `json:"error_message"`
	Notes        string    `json:"notes"`
}

func readShredded(t *testing.T, path string) (*Layout, []Row, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, nil, err
	}
	return ReadParquet(pf, "var")
}

func TestConformanceShreddedVariant(t *testing.T) {
	dir := testenv.ParquetTestingDir(t, "shredded_variant")
	data, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []shreddedCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	var matched, rowsMatched, errorsAsExpected, invalidRead, invalidFailed, empty int
	for _, c := range cases {
		if c.ParquetFile == "" {
			empty++ // parquet-testing keeps a placeholder entry without data
			continue
		}
		name := strings.TrimSuffix(c.ParquetFile, ".parquet")
		t.Run(name, func(t *testing.T) {
			layout, rows, err := readShredded(t, filepath.Join(dir, c.ParquetFile))
			var values []error
			if err == nil {
				for _, r := range rows {
					if r.Null {
						values = append(values, nil)
						continue
					}
					_, rerr := Reconstruct(layout, r)
					values = append(values, rerr)
				}
			}
			firstErr := err
			for _, e := range values {
				if firstErr == nil && e != nil {
					firstErr = e
				}
			}
			invalid := strings.Contains(c.ParquetFile, "-INVALID")
			switch {
			case c.ErrorMessage != "":
				if firstErr == nil {
					t.Fatalf("%s (%s): want error %q, read fine", name, c.Test, c.ErrorMessage)
				}
				t.Logf("%s: error as expected (%s): %v", name, c.ErrorMessage, firstErr)
				errorsAsExpected++
				return
			case invalid && firstErr != nil:
				t.Logf("%s: INVALID case failed cleanly: %v", name, firstErr)
				invalidFailed++
				return
			case firstErr != nil:
				t.Fatalf("%s (%s): %v", name, c.Test, firstErr)
			}
			files := c.VariantFiles
			if c.VariantFile != "" {
				files = []*string{&c.VariantFile}
			}
			if len(files) != len(rows) {
				t.Fatalf("%s: %d rows, %d expected variants", name, len(rows), len(files))
			}
			for i, vf := range files {
				if vf == nil {
					if !rows[i].Null {
						t.Fatalf("%s row %d: want a null row", name, i)
					}
					rowsMatched++
					continue
				}
				raw, err := os.ReadFile(filepath.Join(dir, *vf))
				if err != nil {
					t.Fatal(err)
				}
				want, err := DecodeConcatenated(raw)
				if err != nil {
					t.Fatalf("%s: expected value %s: %v", name, *vf, err)
				}
				got, err := Reconstruct(layout, rows[i])
				if err != nil {
					t.Fatalf("%s row %d: %v", name, i, err)
				}
				if err := Equal(got, want); err != nil {
					t.Fatalf("%s row %d (%s): got %s, want %s: %v", name, i, c.Test, got, want, err)
				}
				rowsMatched++
			}
			if invalid {
				invalidRead++
				t.Logf("%s: INVALID case read (%s)", name, c.Notes)
			} else {
				matched++
			}
		})
	}
	total := matched + errorsAsExpected + invalidRead + invalidFailed
	t.Logf("shredded_variant: %d/%d cases pass (%d entries, %d empty placeholder): %d values match (%d rows), %d errors as expected, %d INVALID read, %d INVALID failed cleanly",
		total, len(cases)-empty, len(cases), empty, matched, rowsMatched, errorsAsExpected, invalidRead, invalidFailed)
}
