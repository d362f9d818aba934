package parquet

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	pq "github.com/parquet-go/parquet-go"

	"github.com/coltype-lab/lab/data"
)

// panickingValues stands in for parquet-go decoding a hostile page: it
// panics as parquet-go does on bytes it did not expect.
type panickingValues struct{}

func (panickingValues) ReadValues([]pq.Value) (int, error) {
	panic("index out of range [7] with length 3")
}

// A projection of primitive fields only reads its rows without a deferred
// recover (recordReader.settableOnly), so a panic of the page decoding must
// still end the read with an error naming the file and column, on that
// call and every later one, and the rows before it stay as they were read.
func TestSettableOnlyReadRecoversInFill(t *testing.T) {
	path := aheadFile(t, 3000, 1000)
	for _, tc := range []struct {
		name    string
		project bool
	}{{"every column", false}, {"one column", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var project *iceberg.Schema
			if tc.project {
				project = aheadIDs
			}
			r, err := buildReader(path, project, false)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if !r.settableOnly {
				t.Fatal("a projection of primitives reads with the per-row recover")
			}
			first, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			if id, _ := first.GetInt32(0); id != 0 {
				t.Fatalf("row 0 id %d", id)
			}
			c := r.cursors[0]
			c.values, c.pos = panickingValues{}, c.n // the next row fills from it
			for range 2 {
				_, err = r.Next()
				if err == nil || errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "parquet: index out of range") ||
					!strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.path) {
					t.Fatalf("Next after a panicking page = %v, want the recovered panic naming the file and column", err)
				}
			}
		})
	}
}

// A projection with a field that is not a typed primitive (a struct here
// would do; a variant or vector too) keeps the per-row recover.
func TestSettableOnlyNeedsEveryFieldTyped(t *testing.T) {
	r := &recordReader{}
	r.root = &rnode{children: []*rnode{{set: func(*data.Record, int, *pq.Value) error { return nil }}, {kind: rVariant}}}
	if settable(r.root) {
		t.Fatal("a variant field read without the per-row recover")
	}
}
