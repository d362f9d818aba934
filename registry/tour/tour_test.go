package tour_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/registry/tour"
)

func TestTour(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	res, err := tour.Run(&out, dir, tour.DefaultRows())
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "tour.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	df := res.DataFile
	if df.Count() != 3 || df.FileSizeBytes() != st.Size() || df.ValueCounts()[1] != 3 || df.NullValueCounts()[2] != 1 {
		t.Fatalf("DataFile count %d size %d (file %d) values %v nulls %v",
			df.Count(), df.FileSizeBytes(), st.Size(), df.ValueCounts(), df.NullValueCounts())
	}
	want := []*data.Record{
		data.Of(tour.Schema, int64(1), "alice"),
		data.Of(tour.Schema, int64(2), "bob"),
		data.Of(tour.Schema, int64(3), nil),
	}
	if len(res.ReadBack) != len(want) {
		t.Fatalf("read back %d records", len(res.ReadBack))
	}
	for i := range want {
		if !want[i].Equal(res.ReadBack[i]) {
			t.Errorf("record %d = %s, want %s", i, res.ReadBack[i], want[i])
		}
	}
	for _, line := range []string{
		"PUFFIN   splittable=false",
		"PARQUET  splittable=true",
		"PARQUET  *data.Record             parquet-generic",
		"AVRO     *data.Record             avro-generic",
		"  record count: 3",
		"  value counts: {1=3, 2=3}",
		"  {id: 3, name: null}",
		"error: Format model is not registered for format ORC and type *data.Record",
		"error: Invalid file format: lance",
	} {
		if !strings.Contains(out.String(), line+"\n") {
			t.Errorf("tour output lacks line %q\n%s", line, out.String())
		}
	}
}
