package variant_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	pvariant "github.com/apache/arrow-go/v18/parquet/variant"

	"github.com/coltype-lab/lab/data/jsonrow"
	lparquet "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/variant"
)

// TestWriteColumnAndSizes: WriteColumn writes what ReadInput reads back
// (nulls too), refuses an existing file without overwrite, and ColumnSizes
// reports, per encoding, the size of the file WriteColumn writes that way,
// leaving no temporary file.
func TestWriteColumnAndSizes(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var values []pvariant.Value
	for i := range 200 {
		if i%7 == 0 {
			values = append(values, pvariant.Value{})
			continue
		}
		v, err := jsonrow.ParseVariant([]byte(`{"id": 12345, "name": "a name", "tags": ["x", "y"]}`))
		if err != nil {
			t.Fatal(err)
		}
		values = append(values, v)
	}
	shred := map[string]string{lparquet.PropShredVariants: "true"}
	dir := t.TempDir()
	files := map[string]string{"plain": filepath.Join(dir, "plain.parquet"), "shredded": filepath.Join(dir, "shredded.parquet")}
	for name, props := range map[string]map[string]string{"plain": nil, "shredded": shred} {
		if err := variant.WriteColumn(files[name], "payload", values, props, false); err != nil {
			t.Fatal(err)
		}
		got, col, err := variant.ReadInput(files[name], "")
		if err != nil || col != "payload" || showAll(got) != showAll(values) {
			t.Errorf("%s: read back column %q (%v), values equal: %v", name, col, err, showAll(got) == showAll(values))
		}
	}
	before, _ := os.ReadFile(files["plain"])
	if err := variant.WriteColumn(files["plain"], "payload", values[:1], nil, false); !errors.Is(err, registry.ErrFileExists) {
		t.Errorf("existing file without overwrite: %v, want registry.ErrFileExists", err)
	}
	if after, _ := os.ReadFile(files["plain"]); string(after) != string(before) {
		t.Error("the refused write changed the file")
	}
	if err := variant.WriteColumn(files["plain"], "payload", values[1:2], nil, true); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
	if got, _, err := variant.ReadInput(files["plain"], "payload"); err != nil || len(got) != 1 {
		t.Errorf("after overwrite: %d values (%v), want 1", len(got), err)
	}
	if err := variant.WriteColumn(files["plain"], "payload", values, nil, true); err != nil {
		t.Fatal(err)
	}

	sizes, err := variant.ColumnSizes("payload", values, []variant.Encoding{{Name: "plain"}, {Name: "shredded", Props: shred}})
	if err != nil {
		t.Fatal(err)
	}
	for name, path := range files {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if sizes[name] != st.Size() {
			t.Errorf("%s: ColumnSizes says %d bytes, WriteColumn wrote %d", name, sizes[name], st.Size())
		}
	}
	if len(sizes) != 2 {
		t.Errorf("sizes %v, want plain and shredded", sizes)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("ColumnSizes left %d entries in TMPDIR", len(ents))
	}
	if _, err := variant.ColumnSizes("payload", values, []variant.Encoding{{Name: "bad", Props: map[string]string{"write.parquet.no-such-property": "1"}}}); err == nil {
		t.Error("an unknown property: no error")
	} else if want := "write bad estimate: "; len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
		t.Errorf("error %q, want it to start %q", err, want)
	}
}
