package compat_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/spec/compat"
)

func smallMatrix(readers ...string) *compat.Matrix {
	m := &compat.Matrix{Readers: readers, Cases: []string{"vector/flba"}, Cells: map[string]map[string]compat.Cell{"vector/flba": {}}}
	for _, r := range readers {
		m.Cells["vector/flba"][r] = compat.Cell{Class: compat.Physical, Note: "a | b"}
	}
	return m
}

// TestWriteIntoBytes: WriteInto keeps the hand-written text byte for
// byte, replaces (not appends) on a second write, refuses a file with one
// marker without touching it, and leaves no temporary file beside it.
func TestWriteIntoBytes(t *testing.T) {
	dir := t.TempDir()
	md := filepath.Join(dir, "COMPAT.md")
	m := smallMatrix("parquet-go", "duckdb")
	hand := "# Title\n\nintro\n\n" + compat.BeginMarker + "\nold\n" + compat.EndMarker + "\n\n## After\nkept\n"
	if err := os.WriteFile(md, []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "# Title\n\nintro\n\n" + compat.BeginMarker + "\n\n" + m.Markdown() + "\n" + compat.EndMarker + "\n\n## After\nkept\n"
	for range 2 {
		if err := m.WriteInto(md); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(md); err != nil || string(got) != want {
			t.Fatalf("WriteInto wrote (%v):\n%s\nwant:\n%s", err, got, want)
		}
	}
	// A new file gets the markers and the table appended.
	fresh := filepath.Join(dir, "fresh.md")
	if err := m.WriteInto(fresh); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(fresh); string(got) != "\n"+compat.BeginMarker+"\n\n"+m.Markdown()+"\n"+compat.EndMarker+"\n" {
		t.Errorf("a new file holds:\n%s", got)
	}
	half := filepath.Join(dir, "half.md")
	const halfText = "# Half\n\n" + compat.BeginMarker + "\nno end\n"
	if err := os.WriteFile(half, []byte(halfText), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteInto(half); err == nil || !strings.Contains(err.Error(), "only one of the generated-table markers") {
		t.Errorf("one marker: error %v", err)
	}
	if got, _ := os.ReadFile(half); string(got) != halfText {
		t.Errorf("the refused write changed %s to:\n%s", half, got)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"COMPAT.md", "fresh.md", "half.md"}) {
		t.Errorf("directory holds %v, want the three files alone", names)
	}
}

// TestCheckWriteKeepsReaders: a write is refused exactly when the file's
// generated table has a column for a reader the write leaves out.
func TestCheckWriteKeepsReaders(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.md")
	if err := smallMatrix("parquet-go", "arrow-go (guarded)", "duckdb").WriteInto(full); err != nil {
		t.Fatal(err)
	}
	tables := filepath.Join(dir, "tables.md")
	section := "# T\n\n## Tables\n\n" + compat.TablesBegin + "\n\n| table | iceberg-go scan | icebird | duckdb read_parquet |\n|---|---|---|---|\n| t | **ok** | **ok** | **ok** |\n\n" + compat.TablesEnd + "\n"
	if err := os.WriteFile(tables, []byte(section), 0o644); err != nil {
		t.Fatal(err)
	}
	noMarkers := filepath.Join(dir, "plain.md")
	if err := os.WriteFile(noMarkers, []byte("| case | parquet-go | duckdb |\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		check   func(string, []string) error
		path    string
		readers []string
		dropped []string // nil: passes
	}{
		{"same readers", compat.CheckWriteKeepsReaders, full, []string{"duckdb", "parquet-go", "arrow-go (guarded)"}, nil},
		{"more readers", compat.CheckWriteKeepsReaders, full, []string{"parquet-go", "arrow-go", "arrow-go (guarded)", "duckdb"}, nil},
		{"fewer readers", compat.CheckWriteKeepsReaders, full, []string{"parquet-go"}, []string{"arrow-go (guarded)", "duckdb"}},
		{"missing file", compat.CheckWriteKeepsReaders, filepath.Join(dir, "absent.md"), []string{"parquet-go"}, nil},
		{"no markers", compat.CheckWriteKeepsReaders, noMarkers, []string{"parquet-go"}, nil},
		{"other section's markers", compat.CheckWriteKeepsReaders, tables, []string{"parquet-go"}, nil},
		{"tables, fewer readers", compat.CheckTablesWriteKeepsReaders, tables, []string{compat.TableReaderIcebergGo}, []string{"icebird", "duckdb read_parquet"}},
		{"tables, all readers", compat.CheckTablesWriteKeepsReaders, tables, []string{compat.TableReaderIcebergGo, "icebird", "duckdb read_parquet"}, nil},
		{"tables, none there", compat.CheckTablesWriteKeepsReaders, full, []string{compat.TableReaderIcebergGo}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.check(tt.path, tt.readers)
			var de *compat.DroppedReadersError
			switch {
			case tt.dropped == nil && err != nil:
				t.Errorf("error %v, want none", err)
			case tt.dropped != nil && !errors.As(err, &de):
				t.Errorf("error %v, want a DroppedReadersError", err)
			case tt.dropped != nil && (de.Path != tt.path || !slices.Equal(de.Readers, tt.dropped)):
				t.Errorf("dropped %v in %s, want %v in %s", de.Readers, de.Path, tt.dropped, tt.path)
			case tt.dropped != nil && !strings.Contains(err.Error(), tt.path+": its generated table has columns for readers "+strings.Join(tt.dropped, ", ")):
				t.Errorf("message %q", err)
			}
		})
	}
}

// TestCheckCheckedInCompat: spec/COMPAT.md's tables name the readers by
// the names --readers takes, so writing them all passes and leaving one
// out is refused.
func TestCheckCheckedInCompat(t *testing.T) {
	const path = "../COMPAT.md"
	var all []string
	for _, r := range compat.Readers() {
		all = append(all, r.Name)
	}
	if err := compat.CheckWriteKeepsReaders(path, all); err != nil {
		t.Errorf("every reader: %v", err)
	}
	if err := compat.CheckWriteKeepsReaders(path, all[:1]); err == nil {
		t.Errorf("readers %v alone: no error", all[:1])
	}
	var tables []string
	for _, r := range compat.TableReaders(nil) {
		tables = append(tables, r.Name)
	}
	if err := compat.CheckTablesWriteKeepsReaders(path, tables); err != nil {
		t.Errorf("every table reader: %v", err)
	}
	if err := compat.CheckTablesWriteKeepsReaders(path, tables[:1]); err == nil {
		t.Errorf("table readers %v alone: no error", tables[:1])
	}
}
