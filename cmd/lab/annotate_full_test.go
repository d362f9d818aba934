package main

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// annotateInput is a Parquet file with a FILE-shaped column doc, of about
// rows x 60 bytes.
func annotateInput(t *testing.T, rows int) []byte {
	t.Helper()
	s := func(v string) *string { return &v }
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[cliRow](&buf)
	for i := range rows {
		r := cliRow{ID: int64(i), Emb: []float32{float32(i), 2, 3, 4}, Emb2: []float64{float64(i), 1}}
		if i%2 == 0 {
			r.Doc = &cliFileRef{URI: s(fmt.Sprintf("s3://bucket/%08d.jpg", i))}
		}
		if _, err := w.Write([]cliRow{r}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The full-disk failure through a writer that fails with ENOSPC is tested
// where the copy is written: formats/parquet/annotate (TestFileFullDisk).
// TestAnnotateOntoFullFilesystem runs the binary onto a real full disk.
