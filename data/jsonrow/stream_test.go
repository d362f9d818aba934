package jsonrow

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/coltype-lab/lab/data"
)

// readAll reads input with read and returns "line:id:name" per record.
func readAll(read func(io.Reader, func(int, *data.Record) error) error, input io.Reader) ([]string, error) {
	var got []string
	err := read(input, func(line int, rec *data.Record) error {
		got = append(got, fmt.Sprintf("%d:%v:%v", line, rec.Get(0), rec.Get(1)))
		return nil
	})
	return got, err
}

func TestReadStreams(t *testing.T) {
	c := codecFor(t, "id:long!, name:string")
	readErr := errors.New("disk gone")
	for _, tc := range []struct {
		name     string
		csv      bool
		in       io.Reader
		want     []string
		wantLine int    // of the *LineError; 0: no error
		wantErr  string // its Err, in part
	}{
		{"jsonl", false, strings.NewReader("{\"id\":1,\"name\":\"a\"}\n\n  \n{\"id\":2}\n{\"id\":3,\"name\":\"c\"}"),
			[]string{"1:1:a", "4:2:<nil>", "5:3:c"}, 0, ""},
		{"jsonl empty", false, strings.NewReader(""), nil, 0, ""},
		{"jsonl bad row", false, strings.NewReader("{\"id\":1}\n{\"id\":\"x\"}\n{\"id\":3}\n"),
			[]string{"1:1:<nil>"}, 2, `column "id"`},
		{"jsonl missing required", false, strings.NewReader("{\"name\":\"a\"}\n"), nil, 1, "id"},
		{"jsonl read error", false, io.MultiReader(strings.NewReader("{\"id\":1}\n{\"id\":2}"), iotest.ErrReader(readErr)),
			[]string{"1:1:<nil>", "2:2:<nil>"}, 2, "disk gone"},
		{"csv", true, strings.NewReader("name,id\na,1\n,2\n\"multi\nline\",3\n"),
			[]string{"2:1:a", "3:2:<nil>", "4:3:multi\nline"}, 0, ""},
		{"csv header only", true, strings.NewReader("id\n"), nil, 0, ""},
		{"csv no header", true, strings.NewReader(""), nil, 1, "no header row: CSV input starts with a row naming the columns"},
		{"csv unknown column", true, strings.NewReader("id,age\n"), nil, 1, `header names column "age", which is not in the schema`},
		{"csv missing required", true, strings.NewReader("name\na\n"), nil, 1, `header has no column "id", which the schema requires`},
		{"csv cell count", true, strings.NewReader("id,name\n1,a\n2\n"), []string{"2:1:a"}, 3, "1 cells, the header has 2"},
		{"csv bad cell", true, strings.NewReader("id,name\n1,a\n\"multi\nline\",b\n"), []string{"2:1:a"}, 3, `column "id"`},
		{"csv syntax", true, strings.NewReader("id,name\n1,a\n2,\"b\n"), []string{"2:1:a"}, 3, "extraneous or missing \" in quoted-field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := c.ReadJSONLines
			if tc.csv {
				read = c.ReadCSV
			}
			got, err := readAll(read, tc.in)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("records %q, want %q", got, tc.want)
			}
			if tc.wantLine == 0 {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			le, ok := err.(*LineError)
			if !ok || le.Line != tc.wantLine || !strings.Contains(le.Err.Error(), tc.wantErr) {
				t.Fatalf("err = %#v (%v), want a *LineError at line %d with %q", err, err, tc.wantLine, tc.wantErr)
			}
			if want := fmt.Sprintf("line %d: %v", le.Line, le.Err); err.Error() != want {
				t.Errorf("Error() = %q, want %q", err, want)
			}
		})
	}
}

// TestReadStreamsStopOnCallbackError: fn's error ends the read as it is,
// not as a *LineError.
func TestReadStreamsStopOnCallbackError(t *testing.T) {
	c := codecFor(t, "id:long!, name:string")
	stop := errors.New("stop")
	for name, read := range map[string]func(io.Reader, func(int, *data.Record) error) error{
		"jsonl": c.ReadJSONLines, "csv": c.ReadCSV,
	} {
		in := "{\"id\":1}\n{\"id\":2}\n"
		if name == "csv" {
			in = "id\n1\n2\n"
		}
		calls := 0
		err := read(strings.NewReader(in), func(int, *data.Record) error { calls++; return stop })
		if err != stop || calls != 1 {
			t.Errorf("%s: err = %v after %d calls, want stop after 1", name, err, calls)
		}
	}
}
