package vectorcol

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFile publishes a whole file or nothing: it replaces a file already
// at the path only once the new one is complete, leaves no temporary
// sibling behind, and refuses a path it must not replace.
func TestWriteFilePublishes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v.parquet")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	col := Column{Dim: 2, Data: []float32{1, 2, 3, 4}}
	for _, l := range Layouts() {
		if err := WriteFile(path, col, WriteOptions{Layout: l}); err != nil {
			t.Fatalf("%v: %v", l, err)
		}
		f, err := OpenFile(path)
		if err != nil {
			t.Fatalf("%v: %v", l, err)
		}
		if info := f.Info(); info.Layout != l || info.Rows != 2 {
			t.Errorf("%v: read back %+v", l, info)
		}
		f.Close()
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the directory, want only the file", len(entries))
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(sub, col, WriteOptions{Layout: LayoutFLBA}); err == nil {
		t.Error("a directory was replaced")
	}
	if st, err := os.Stat(sub); err != nil || !st.IsDir() {
		t.Errorf("the directory is gone: %v", err)
	}
}
