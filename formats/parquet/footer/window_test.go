package footer

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
)

// TestWindowModelMatches keeps fileMetaDataWindow in step with FileMetaData:
// the same fields under the same thrift tags, row_groups aside.
func TestWindowModelMatches(t *testing.T) {
	full, win := reflect.TypeFor[FileMetaData](), reflect.TypeFor[fileMetaDataWindow]()
	if full.NumField() != win.NumField() {
		t.Fatalf("FileMetaData has %d fields, fileMetaDataWindow %d", full.NumField(), win.NumField())
	}
	for i := range full.NumField() {
		f, w := full.Field(i), win.Field(i)
		if f.Name != w.Name || f.Tag != w.Tag || (f.Name != "RowGroups" && f.Type != w.Type) {
			t.Errorf("field %d: %s %s %s, window has %s %s %s", i, f.Name, f.Type, f.Tag, w.Name, w.Type, w.Tag)
		}
	}
}

// threeRowGroups is a file of three row groups of one row each.
func threeRowGroups(t *testing.T) []byte {
	t.Helper()
	return writeParquet(t, flatRows(), parquet.MaxRowsPerRowGroup(1))
}

func TestReadFooterRowGroups(t *testing.T) {
	data := threeRowGroups(t)
	full := readFooterBytes(t, data)
	if full.FirstRowGroup != 0 || full.NumRowGroups != 3 || len(full.Meta.RowGroups) != 3 {
		t.Fatalf("ReadFooter: first %d, %d row groups, %d decoded", full.FirstRowGroup, full.NumRowGroups, len(full.Meta.RowGroups))
	}
	for _, tc := range []struct {
		name        string
		w           RowGroupWindow
		first, kept int
	}{
		{"none", RowGroupWindow{}, 0, 0},
		{"none, strict", RowGroupWindow{Strict: true}, 0, 0},
		{"first", RowGroupWindow{Count: 1}, 0, 1},
		{"middle", RowGroupWindow{First: 1, Count: 1}, 1, 1},
		{"to the end", RowGroupWindow{First: 1, Count: -1}, 1, 2},
		{"past the end", RowGroupWindow{First: 2, Count: 10}, 2, 1},
		{"all", AllRowGroups, 0, 3},
		{"after the last", RowGroupWindow{First: 7, Count: 2}, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ReadFooterRowGroups(bytes.NewReader(data), int64(len(data)), tc.w)
			if err != nil {
				t.Fatal(err)
			}
			if f.FirstRowGroup != tc.first || f.NumRowGroups != 3 || len(f.Meta.RowGroups) != tc.kept {
				t.Fatalf("first %d, %d row groups, %d kept; want %d, 3, %d", f.FirstRowGroup, f.NumRowGroups, len(f.Meta.RowGroups), tc.first, tc.kept)
			}
			for i := range f.Meta.RowGroups {
				got, _ := encodeValue(&f.Meta.RowGroups[i])
				want, _ := encodeValue(&full.Meta.RowGroups[tc.first+i])
				if !bytes.Equal(got, want) {
					t.Errorf("row group %d differs from ReadFooter's", tc.first+i)
				}
			}
			// Everything but the row groups is what ReadFooter decodes.
			m := *f.Meta
			m.RowGroups = full.Meta.RowGroups
			if got, _ := Encode(&m); !bytes.Equal(got, full.Raw) {
				t.Error("the rest of the footer differs from ReadFooter's")
			}
		})
	}
	if _, err := ReadFooterRowGroups(bytes.NewReader(data), int64(len(data)), RowGroupWindow{First: -1}); err == nil {
		t.Error("a window before the first row group was accepted")
	}
}

// TestReadFooterRowGroupsStrict checks that a row group outside the window
// is type-checked only when the window asks for it: num_rows of row group 1
// is re-typed from i64 to i32, which ScanStruct accepts (both are varints)
// and the strict decode refuses.
func TestReadFooterRowGroupsStrict(t *testing.T) {
	data := threeRowGroups(t)
	f := readFooterBytes(t, data)
	const marker = 0x123456
	f.Meta.RowGroups[1].TotalByteSize = marker
	raw, err := Encode(f.Meta)
	if err != nil {
		t.Fatal(err)
	}
	// total_byte_size (field 2, i64) and num_rows (field 3, i64) follow
	// one another: their headers are 0x16 (delta 1, type i64).
	field2 := append([]byte{0x16}, binary.AppendVarint(nil, marker)...)
	at := bytes.Index(raw, field2)
	if at < 0 || raw[at+len(field2)] != 0x16 {
		t.Fatal("row group 1's total_byte_size and num_rows not found in the footer")
	}
	raw[at+len(field2)] = 0x15 // num_rows as i32
	forged := append(bytes.Clone(data[:f.Offset]), raw...)
	forged = binary.LittleEndian.AppendUint32(forged, uint32(len(raw)))
	forged = append(forged, "PAR1"...)
	size := int64(len(forged))

	if _, err := ReadFooter(bytes.NewReader(forged), size); err == nil || !strings.Contains(err.Error(), "type mismatch") {
		t.Errorf("ReadFooter: %v, want a type mismatch", err)
	}
	_, err = ReadFooterRowGroups(bytes.NewReader(forged), size, RowGroupWindow{Strict: true})
	if err == nil || !strings.Contains(err.Error(), "row group 1: ") || !strings.Contains(err.Error(), "type mismatch") {
		t.Errorf("strict window: %v, want a type mismatch in row group 1", err)
	}
	if _, err := ReadFooterRowGroups(bytes.NewReader(forged), size, RowGroupWindow{First: 2, Count: 1}); err != nil {
		t.Errorf("a window without row group 1: %v", err)
	}
	if _, err := ReadFooterRowGroups(bytes.NewReader(forged), size, RowGroupWindow{First: 1, Count: 1}); err == nil {
		t.Error("a window holding row group 1 decoded it")
	}
}

// TestRowGroupWindowNotEncodable: the window type is only for decoding.
func TestRowGroupWindowNotEncodable(t *testing.T) {
	if _, err := encodeValue(&fileMetaDataWindow{RowGroups: rowGroupWindow{groups: thrift.Slice[RowGroup]{}}}); err == nil {
		t.Error("a row group window encoded")
	}
}
