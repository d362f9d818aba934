package variant

import (
	"errors"
	"strings"
	"testing"
)

// Hand-built bytes: metadata with the keys "a" and "b", and objects whose
// field ids are out of order, as DuckDB writes some residual objects.
var (
	abMetadata = []byte{0x11, 2, 0, 1, 2, 'a', 'b'}
	// {b: 7, a: 5} with ids [1, 0]: the order the spec forbids.
	unsortedObject = []byte{0x02, 2, 1, 0, 0, 2, 4, 0x0C, 7, 0x0C, 5}
	// The same object with the pairs sorted; the values stay in place.
	sortedObject = []byte{0x02, 2, 0, 1, 2, 0, 4, 0x0C, 7, 0x0C, 5}
	// Both ids name "a".
	duplicateObject = []byte{0x02, 2, 0, 0, 0, 2, 4, 0x0C, 7, 0x0C, 5}
)

func inArray(elem []byte) []byte {
	return append([]byte{0x03, 1, 0, byte(len(elem))}, elem...)
}

func TestSortObjectKeys(t *testing.T) {
	meta, err := DecodeMetadata(abMetadata)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(abMetadata, unsortedObject); err == nil || !strings.Contains(err.Error(), "not strictly sorted") {
		t.Fatalf("the unsorted object decodes: %v", err)
	}
	for _, tc := range []struct {
		name      string
		in, want  []byte
		wantJSON  string
		wantError string
	}{
		{name: "object", in: unsortedObject, want: sortedObject, wantJSON: `{"a":5,"b":7}`},
		{name: "in an array", in: inArray(unsortedObject), want: inArray(sortedObject), wantJSON: `[{"a":5,"b":7}]`},
		{name: "already sorted", in: sortedObject, want: sortedObject, wantJSON: `{"a":5,"b":7}`},
		{name: "duplicate keys", in: duplicateObject, wantError: `field "a" twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig := append([]byte{}, tc.in...)
			got, err := SortObjectKeys(meta, tc.in)
			if tc.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantError) {
					t.Fatalf("err = %v, want %q", err, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(tc.want) {
				t.Fatalf("got % x, want % x", got, tc.want)
			}
			if string(tc.in) != string(orig) {
				t.Fatal("the input was changed")
			}
			v, err := Decode(abMetadata, got)
			if err != nil {
				t.Fatal(err)
			}
			js, err := v.MarshalJSON()
			if err != nil || string(js) != tc.wantJSON {
				t.Fatalf("repaired value %s (%v), want %s", js, err, tc.wantJSON)
			}
		})
	}
}

func TestReconstructWithPolicy(t *testing.T) {
	row := Row{Metadata: abMetadata, Shredded: Shredded{Value: unsortedObject}}
	if _, err := ReconstructWith(nil, row, Refuse); err == nil || !strings.Contains(err.Error(), "not strictly sorted") {
		t.Fatalf("refuse: %v", err)
	}
	v, err := ReconstructWith(nil, row, RepairKeyOrder)
	if err != nil {
		t.Fatal(err)
	}
	if js, _ := v.MarshalJSON(); string(js) != `{"a":5,"b":7}` {
		t.Fatalf("repair: %s", js)
	}
	var asNull *InvalidAsNull
	if _, err := ReconstructWith(nil, row, NullInvalid); !errors.As(err, &asNull) || !strings.Contains(asNull.Err.Error(), "not strictly sorted") {
		t.Fatalf("null: %v", err)
	}
	dup := Row{Metadata: abMetadata, Shredded: Shredded{Value: duplicateObject}}
	if _, err := ReconstructWith(nil, dup, RepairKeyOrder); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("a duplicate key is repaired: %v", err)
	}
	for _, s := range []string{"", "error", "repair-key-order", "null", "NULL"} {
		if _, err := ParsePolicy(s); err != nil {
			t.Errorf("ParsePolicy(%q): %v", s, err)
		}
	}
	if _, err := ParsePolicy("ignore"); err == nil || !strings.Contains(err.Error(), ReadPolicyKey) {
		t.Errorf("ParsePolicy(ignore): %v", err)
	}
}

// FuzzSortObjectKeys: any bytes, no panic; the output keeps the input's
// length, and a value that decodes after repair decodes to sorted keys.
func FuzzSortObjectKeys(f *testing.F) {
	for _, seed := range [][]byte{unsortedObject, sortedObject, duplicateObject, inArray(unsortedObject), {0x02, 0xff}, {0x03, 200, 0}} {
		f.Add(seed)
	}
	meta, err := DecodeMetadata(abMetadata)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, value []byte) {
		got, err := SortObjectKeys(meta, value)
		if err != nil {
			return
		}
		if len(got) != len(value) {
			t.Fatalf("repair changed the length: %d to %d", len(value), len(got))
		}
		_, _ = Decode(abMetadata, got)
	})
}
