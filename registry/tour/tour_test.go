package tour_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
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
	st, err := os.Stat(filepath.Join(dir, "out.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	df := res.DataFile
	if df.Count() != 3 || df.FileSizeBytes() != st.Size() || df.ValueCounts()[1] != 3 || df.NullValueCounts()[2] != 0 {
		t.Fatalf("DataFile count %d size %d (file %d) values %v nulls %v",
			df.Count(), df.FileSizeBytes(), st.Size(), df.ValueCounts(), df.NullValueCounts())
	}
	want := []*data.Record{
		data.Of(tour.Schema, int64(1), "row-1"),
		data.Of(tour.Schema, int64(2), "row-2"),
		data.Of(tour.Schema, int64(3), "row-3"),
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
		// The Java program's lines, the byte count aside.
		"Record(1, row-1)",
		"Record(2, row-2)",
		"Record(3, row-3)",
		"wrote " + filepath.Join(dir, "out.parquet") + " format=PARQUET records=3 bytes=" + strconv.FormatInt(st.Size(), 10) + " valueCounts={1=3, 2=3}",
		"  record count: 3",
		"  value counts: {1=3, 2=3}",
		"  Record(3, row-3)",
		"error: Format model is not registered for format ORC and type *data.Record",
		"error: Invalid file format: lance",
	} {
		if !strings.Contains(out.String(), line+"\n") {
			t.Errorf("tour output lacks line %q\n%s", line, out.String())
		}
	}
}
