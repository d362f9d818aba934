package arrow

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/internal/sample"
	"github.com/coltype-lab/lab/registry"
)

// arrowFuzzBudget bounds one input's reads; a read that takes longer is a
// hang as far as the fuzz target is concerned.
const arrowFuzzBudget = 10 * time.Second

// FuzzOpenParquet feeds arbitrary bytes to both registry read paths for
// Parquet, (PARQUET, *data.Record) and (PARQUET, arrow.RecordBatch), and
// reads every row. Errors are expected; a panic, a hang, or an error that
// does not name the file is a failure. The seeds are small valid files from
// both writers plus truncated and bit-flipped variants.
func FuzzOpenParquet(f *testing.F) {
	for _, seed := range arrowFuzzSeeds(f) {
		f.Add(seed)
	}
	// One file per process: a worker runs its inputs one at a time.
	path := filepath.Join(f.TempDir(), "fuzz.parquet")
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		arrowWithin(t, "arrow.RecordBatch", func() error { return arrowReadEverything(path) }, path)
		if _, err := registry.ModelFor[*data.Record](registry.Default, registry.PARQUET); err == nil {
			arrowWithin(t, "*data.Record", func() error { return arrowReadAllRecords(path) }, path)
		}
	})
}

// arrowWithin runs read under the time budget and checks that its error,
// if any, names the file.
func arrowWithin(t *testing.T, rowType string, read func() error, path string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- read() }()
	select {
	case err := <-done:
		if err != nil && !strings.Contains(err.Error(), path) {
			t.Errorf("(PARQUET, %s): error does not name the file: %v", rowType, err)
		}
	case <-time.After(arrowFuzzBudget):
		t.Fatalf("(PARQUET, %s): reading did not finish within %s", rowType, arrowFuzzBudget)
	}
}

// arrowReadAllRecords reads every row through the *data.Record model.
func arrowReadAllRecords(path string) error {
	rb, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, registry.LocalInput(path))
	if err != nil {
		return err
	}
	r, err := rb.Build()
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		if _, err := r.Next(); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// arrowFuzzSeeds writes small valid files with the arrow model (and the
// record model when it is registered) and derives broken variants from them.
func arrowFuzzSeeds(f *testing.F) [][]byte {
	dir := f.TempDir()
	sc := sample.Schema()
	recs := sample.Records(sc, 0, 6)
	var valid [][]byte
	for i, props := range []map[string]string{
		{"write.parquet.compression-codec": "uncompressed"},
		{"write.parquet.compression-codec": "snappy", "write.parquet.row-group-limit": "3"},
		{"write.parquet.compression-codec": "zstd", "parquet.enable.dictionary": "false"},
	} {
		batch := arrowBatchOf(f, sc, recs...)
		path := filepath.Join(dir, "arrow"+string(rune('0'+i))+".parquet")
		arrowWriteFile(f, path, sc, props, batch)
		batch.Release()
		valid = append(valid, arrowMustRead(f, path))
	}
	if _, err := registry.ModelFor[*data.Record](registry.Default, registry.PARQUET); err == nil {
		path := filepath.Join(dir, "records.parquet")
		if b, err := arrowWriteRecordFile(path, sc, recs); err == nil {
			valid = append(valid, b)
		} else {
			f.Logf("no seed from the record model: %v", err)
		}
	}
	// One flat file: fewer levels, so mutations reach the data pages sooner.
	flat := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "v", Type: iceberg.PrimitiveTypes.Int64})
	fb := arrowBatchOf(f, flat, data.Of(flat, int64(1)), data.Of(flat, nil), data.Of(flat, int64(3)))
	flatPath := filepath.Join(dir, "flat.parquet")
	arrowWriteFile(f, flatPath, flat, map[string]string{"write.parquet.compression-codec": "uncompressed"}, fb)
	fb.Release()
	valid = append(valid, arrowMustRead(f, flatPath))

	seeds := append([][]byte{}, valid...)
	for _, v := range valid {
		seeds = append(seeds, v[:len(v)/2], v[:len(v)-1], v[:len(v)-9])
		for _, at := range []int{4, 16, len(v) / 3, len(v) / 2, len(v) - 12, len(v) - 20} {
			b := append([]byte{}, v...)
			b[at] ^= 0x55
			seeds = append(seeds, b)
		}
	}
	return append(seeds, nil, []byte("PAR1"), []byte("PAR1\x00\x00\x00\x00PAR1"))
}

func arrowMustRead(f *testing.F, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

func arrowWriteRecordFile(path string, sc *iceberg.Schema, recs []*data.Record) ([]byte, error) {
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(path))
	if err != nil {
		return nil, err
	}
	w, err := b.Schema(sc).Build()
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			_ = w.Abort()
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}
