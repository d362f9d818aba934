package bench

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
	"github.com/coltype-lab/lab/types/vector"
)

// DatasetFile is one file a benchmark wrote of its dataset and who reads
// it: the forms the engines read the same vectors in.
type DatasetFile struct {
	Name    string
	Bytes   int64
	Format  string
	ReadBy  []string
	Comment string `json:",omitempty"`
}

// datasetFile describes name under dir, a file or a directory (a Lance
// dataset), with its size in bytes summed over its files.
func datasetFile(dir, name, format string, readBy []string) DatasetFile {
	var size int64
	_ = filepath.WalkDir(filepath.Join(dir, name), func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				size += info.Size()
			}
		}
		return nil
	})
	return DatasetFile{Name: name, Bytes: size, Format: format, ReadBy: readBy}
}

// WritePlainVectors writes data as the lab's vector column in layout, PLAIN
// and uncompressed: the file a search reads fastest, so that the engines
// are compared on scoring, not on decompression.
func WritePlainVectors(path string, data vector.Matrix, layout vectorcol.Layout) error {
	opts := vectorcol.WriteOptions{Layout: layout, Encoding: vectorcol.EncodingPlain, Codec: vectorcol.CodecNone}
	if err := vectorcol.WriteFile(path, vectorcol.Column{Dim: data.Dim, Data: data.Data}, opts); err != nil {
		return fmt.Errorf("bench: %s: %w", path, err)
	}
	return nil
}

type idListRow struct {
	ID  int64     `parquet:"id"`
	Emb []float32 `parquet:"emb,list"`
}

// WriteIDListFile writes data with parquet-go as an id column and a
// LIST<FLOAT> column emb: a plain Parquet file as a user would write it,
// whose list DuckDB's array functions cast to FLOAT[dim].
func WriteIDListFile(path string, data vector.Matrix) error {
	rows := make([]idListRow, data.Rows())
	for i := range rows {
		rows[i] = idListRow{ID: int64(i), Emb: data.Row(i)}
	}
	if err := parquet.WriteFile(path, rows); err != nil {
		return fmt.Errorf("bench: %s: %w", path, err)
	}
	return nil
}
