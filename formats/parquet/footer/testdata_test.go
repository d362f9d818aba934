package footer

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/internal/testenv"
)

// Every Parquet file in parquet-testing either round-trips byte-identically
// (and then a rewrite without an edit reproduces the file exactly) or is
// refused by RewriteFooter; none is silently altered.
func TestParquetTestingFooters(t *testing.T) {
	root := testenv.ParquetTestingDir(t)
	var identical, refused, unreadable int
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".parquet") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := ReadFooter(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			unreadable++
			t.Logf("%s: unreadable: %v", rel, err)
			return nil
		}
		enc, err := Encode(f.Meta)
		var out bytes.Buffer
		rerr := RewriteFooter(bytes.NewReader(data), int64(len(data)), &out, nil)
		if err == nil && bytes.Equal(enc, f.Raw) {
			identical++
			if rerr != nil || !bytes.Equal(out.Bytes(), data) {
				t.Errorf("%s: re-encodes identically, but the no-op rewrite gave err %v / %d bytes", rel, rerr, out.Len())
			}
			return nil
		}
		refused++
		t.Logf("%s: does not re-encode identically (first difference at footer byte %d): %v", rel, firstDifference(enc, f.Raw), err)
		if rerr == nil || out.Len() != 0 {
			t.Errorf("%s: RewriteFooter did not refuse a footer that does not re-encode identically (err %v, %d bytes written)", rel, rerr, out.Len())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("parquet-testing: %d footers re-encode byte-identically, %d do not (refused), %d unreadable", identical, refused, unreadable)
	if identical == 0 {
		t.Error("no footer re-encoded identically; is the directory right?")
	}
}

func TestParquetTestingUnknownLogicalType(t *testing.T) {
	path := filepath.Join(testenv.ParquetTestingDir(t, "data"), "unknown-logical-type.parquet")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := readFooterBytes(t, data)
	got, err := ReadAnnotations(f.Meta)
	if err != nil {
		t.Fatal(err)
	}
	want := []Annotation{{Path: []string{"column with unknown type"}, Kind: KindUnknown, ID: 2555, InFooter: true}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("annotations\n got %+v\nwant %+v", got, want)
	}
	if s := f.Meta.Schema[2].LogicalType.String(); s != "UNKNOWN_ANNOTATION(id=2555)" {
		t.Errorf("logical type prints as %q", s)
	}
	// The unknown annotation survives a rewrite that edits something else.
	out := rewrite(t, data, func(m *FileMetaData) error { m.SetKeyValue("touched", "yes"); return nil })
	after := readFooterBytes(t, out).Meta
	if !reflect.DeepEqual(after.Schema[2].LogicalType, f.Meta.Schema[2].LogicalType) {
		t.Errorf("unknown annotation became %s", after.Schema[2].LogicalType.String())
	}
	s, err := Sanitize(after)
	if err != nil {
		t.Fatal(err)
	}
	if s.Schema[2].LogicalType.Value != nil || s.Schema[1].LogicalType.String() != "STRING" {
		t.Errorf("sanitized: %s, %s", s.Schema[1].LogicalType.String(), s.Schema[2].LogicalType.String())
	}
}
