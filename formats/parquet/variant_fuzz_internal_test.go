package parquet

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/registry"
)

// FuzzVariantRead feeds mutated shredded and unshredded variant files to
// the variant reads: full reconstruction, ReadVariantPath (its batched
// typed_value path included) and the projected path as an int and as a
// variant. Each must return values or an error naming the file, never
// panic.
func FuzzVariantRead(f *testing.F) {
	for _, seed := range variantReadSeeds(f, f.TempDir(), nil) {
		f.Add(seed)
		for _, at := range []int{len(seed) / 5, len(seed) / 3, len(seed) / 2} {
			corrupt := bytes.Clone(seed)
			corrupt[at] ^= 0x5a
			f.Add(corrupt)
		}
	}
	proj := func(typ iceberg.Type) *iceberg.Schema {
		return iceberg.NewSchema(0, iceberg.NestedField{ID: 1000, Name: "uid", Type: typ})
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p := filepath.Join(t.TempDir(), "fuzz.parquet")
		if err := os.WriteFile(p, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		named := func(what string, err error) {
			if err != nil && !strings.Contains(err.Error(), p) {
				t.Errorf("%s: error %v does not name the file", what, err)
			}
		}
		// A read that does not end is a failure, and the fuzzer keeps its
		// input: the file declares a few thousand values at most.
		_ = testenv.ErrWithin(t, 20*time.Second, func() error { readVariantFuzz(t, p, named, proj); return nil })
	})
}

// variantReadSeeds writes the variant fuzz targets' seed files, shredded
// (with residuals, row groups of 16 rows) and unshredded, into dir, with
// the write properties extra too, and returns their bytes.
func variantReadSeeds(tb testing.TB, dir string, extra map[string]string) [][]byte {
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "v", Type: iceberg.VariantType{}},
	)
	var values []pvariant.Value
	for i := range 40 {
		js := fmt.Sprintf(`{"ts": %d, "user": {"id": %d, "c": "x%d"}, "tags": ["a", "b%d"]}`, 1000+i, 100_000+i, i%3, i%5)
		if i == 17 {
			js = `{"ts": "late", "user": {"id": "s"}, "tags": [1]}` // residuals
		}
		v, err := pvariant.ParseJSON(js, false)
		if err != nil {
			tb.Fatal(err)
		}
		values = append(values, v)
	}
	var seeds [][]byte
	for i, props := range []map[string]string{
		{PropShredVariants: "true", PropVariantInferenceRows: "20", PropRowGroupRows: "16"},
		{PropRowGroupRows: "16"},
	} {
		path := filepath.Join(dir, fmt.Sprintf("seed%d.parquet", i))
		maps.Copy(props, extra)
		writeInternal(tb, path, sc, props, values)
		seed, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, seed)
	}
	return seeds
}

func readVariantFuzz(t *testing.T, p string, named func(string, error), proj func(iceberg.Type) *iceberg.Schema) {
	for _, opts := range []registry.ReadOptions{
		{CaseSensitive: true},
		{CaseSensitive: true, Projection: proj(iceberg.PrimitiveTypes.Int32), Properties: map[string]string{VariantPathsKey: "uid=v:$.user.id"}},
		{CaseSensitive: true, Projection: proj(iceberg.VariantType{}), Properties: map[string]string{VariantPathsKey: "uid=v:$.user.id"}},
	} {
		r, err := newRecordReader(registry.LocalInput(p), opts)
		if err != nil {
			named("open", err)
			continue
		}
		for range 10_000 {
			if _, err = r.Next(); err != nil {
				break
			}
		}
		if !errors.Is(err, io.EOF) {
			named("read", err)
		}
		r.Close()
	}
	_, err := ReadVariantPath(registry.LocalInput(p), "v", "$.user.id")
	named("ReadVariantPath", err)
}
