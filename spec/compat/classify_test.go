package compat

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/coltype-lab/lab/bench/peers"
)

// vectorCase is a FLBA VECTOR case: meaning as numbers, physical as hex.
func vectorCase() Case {
	return Case{ID: "vector/flba", Path: "/data/flba.parquet", Column: "emb", Annotation: "VECTOR",
		Rows:         []map[string]any{{"emb": []any{1.0, 2.0, 3.0}}, {"emb": nil}},
		PhysicalRows: []map[string]any{{"emb": "0000803f0000004000004040"}, {"emb": nil}},
	}
}

// fileCase is a FILE case, where meaning and physical layout coincide.
func fileCase() Case {
	return Case{ID: "file/range", Path: "/data/range.parquet", Column: "doc", Annotation: "FILE",
		Rows: []map[string]any{{"id": 0, "doc": map[string]any{"uri": "objects/data.bin", "offset": 10, "size": 6, "inline": nil}}},
	}
}

func out(colType string, rows ...map[string]any) *Output {
	return &Output{Columns: []Column{{Name: "emb", Type: colType}, {Name: "doc", Type: colType}}, Rows: rows}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Case
		out  *Output
		err  error
		want Class
		note string
	}{
		{"vector as numbers", vectorCase(), out("FLOAT[3]", map[string]any{"emb": []float32{1, 2, 3}}, map[string]any{"emb": nil}), nil, Typed, "FLOAT[3]"},
		{"vector as bytes", vectorCase(), out("BLOB", map[string]any{"emb": "0000803f0000004000004040"}, map[string]any{"emb": nil}), nil, Physical, "BLOB"},
		{"vector with a wrong element", vectorCase(), out("FLOAT[3]", map[string]any{"emb": []float32{1, 2, 4}}, map[string]any{"emb": nil}), nil, Wrong, "rows[0].emb[2]: got 4, want 3"},
		{"vector with wrong bytes", vectorCase(), out("BLOB", map[string]any{"emb": "0000803f0000004000004041"}, map[string]any{"emb": nil}), nil, Wrong, "rows[0].emb: got"},
		{"a row too many", vectorCase(), out("BLOB", map[string]any{"emb": "0000803f0000004000004040"}, map[string]any{"emb": nil}, map[string]any{"emb": nil}), nil, Wrong, "got 3 values, want 2"},
		{"no rows", vectorCase(), out("BLOB"), nil, Wrong, "got 0 values, want 2"},
		{"a null that is not", vectorCase(), out("BLOB", map[string]any{"emb": "0000803f0000004000004040"}, map[string]any{"emb": "00"}), nil, Wrong, "rows[1].emb"},
		{"FILE recognised, int64 as strings", fileCase(),
			out("FILE", map[string]any{"id": "0", "doc": map[string]any{"uri": "objects/data.bin", "offset": "10", "size": "6", "inline": nil, "checksum": nil}}), nil, Typed, "FILE"},
		{"FILE as a plain struct", fileCase(),
			out("STRUCT", map[string]any{"id": int64(0), "doc": map[string]any{"uri": "objects/data.bin", "offset": int64(10), "size": int64(6)}}), nil, Physical, "STRUCT"},
		{"FILE with a wrong offset", fileCase(),
			out("FILE", map[string]any{"id": "0", "doc": map[string]any{"uri": "objects/data.bin", "offset": "11", "size": "6"}}), nil, Wrong, "rows[0].doc.offset: got \"11\", want 10"},
		{"a number is not a string", fileCase(),
			out("STRUCT", map[string]any{"id": 0, "doc": map[string]any{"uri": "objects/data.bin", "offset": 10, "size": 6, "content_type": 5}}), nil, Wrong, "content_type"},
		{"a panic", vectorCase(), nil, &CrashError{Reader: "r", Detail: "panic: invalid logical type"}, Crash, "panic: invalid logical type"},
		{"a clean error naming the file", vectorCase(), nil, errors.New("reading /data/flba.parquet: unknown repetition\nmore"), Error, "reading flba.parquet: unknown repetition"},
		{"no output, no error", vectorCase(), nil, nil, Crash, "no output"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Classify(tc.c, tc.out, tc.err)
			if got.Class != tc.want || !strings.Contains(got.Note, tc.note) {
				t.Errorf("Classify = %+v, want class %s with a note containing %q", got, tc.want, tc.note)
			}
		})
	}
}

func TestDiffValueLeniencies(t *testing.T) {
	for _, tc := range []struct {
		want, got any
		equal     bool
	}{
		{map[string]any{"a": nil, "b": 1}, map[string]any{"b": "1"}, true},                 // absent = null; int64 as a string
		{map[string]any{"g": map[string]any{"value": nil, "typed_value": nil}}, nil, true}, // an all-null group = null
		{[]any{1.5}, []any{"1.50"}, true},                                                  // same number
		{[]any{"010203"}, []any{10203}, false},                                             // a string is never a number
		{[]any{1, 2}, []any{1, 2, 3}, false},                                               // lengths
		{map[string]any{"a": 1}, map[string]any{"a": 1, "b": true}, false},                 // extra members
		{"9007199254740993", "9007199254740993", true},                                     // exact big integers
		{jsonNumber("9007199254740993"), jsonNumber("9007199254740992"), false},            // no float rounding
	} {
		w, _ := normalise(tc.want)
		g, _ := normalise(tc.got)
		if d := diffValue("v", collapse(w), collapse(g)); (d == "") != tc.equal {
			t.Errorf("diffValue(%v, %v) = %q, want equal=%v", tc.want, tc.got, d, tc.equal)
		}
	}
}

// TestRunClassesFakeReaders runs the matrix with readers that panic, hang,
// return wrong values and read correctly.
func TestRunClassesFakeReaders(t *testing.T) {
	defer func(d time.Duration) { InProcessTimeout = d }(InProcessTimeout)
	InProcessTimeout = 200 * time.Millisecond
	good := func(context.Context, string) (*Output, error) {
		return out("FLOAT[3]", map[string]any{"emb": []any{1, 2, 3}}, map[string]any{"emb": nil}), nil
	}
	readers := []Reader{
		inProcess("panics", func(context.Context, string) (*Output, error) { panic("boom") }),
		inProcess("hangs", func(context.Context, string) (*Output, error) { time.Sleep(time.Minute); return nil, nil }),
		inProcess("wrong", func(context.Context, string) (*Output, error) {
			return out("FLOAT[3]", map[string]any{"emb": []any{1, 2, 3}}, map[string]any{"emb": []any{0, 0, 0}}), nil
		}),
		inProcess("good", good),
	}
	m, err := Run(context.Background(), []Case{vectorCase()}, readers)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Class{"panics": Crash, "hangs": Crash, "wrong": Wrong, "good": Typed}
	for r, c := range want {
		if got := m.Cells["vector/flba"][r]; got.Class != c {
			t.Errorf("reader %s: %+v, want %s", r, got, c)
		}
	}
	diffs := Diff(Expected{Readers: m.Readers, Cells: map[string]map[string]Class{"vector/flba": {"panics": Crash, "hangs": Crash, "wrong": Physical, "good": Typed}}}, m)
	if len(diffs) != 1 || !strings.Contains(diffs[0], "case vector/flba × reader wrong: got wrong, want physical") {
		t.Errorf("Diff = %q, want the one changed cell named", diffs)
	}
	md := m.Markdown()
	for _, s := range []string{"| vector/flba |", "**crash** <sub>panic: boom</sub>", "**typed**"} {
		if !strings.Contains(md, s) {
			t.Errorf("Markdown lacks %q:\n%s", s, md)
		}
	}
}

func TestPeerFailure(t *testing.T) {
	exit1 := exec.Command("sh", "-c", "exit 1").Run()
	exit3 := exec.Command("sh", "-c", "exit 3").Run()
	for _, tc := range []struct {
		name string
		err  error
		want Class
	}{
		{"the reader threw", &peers.Error{Peer: "p", Kind: peers.ErrCrash, Stderr: "error: Error: Unexpected FieldRepetitionType 3\n  at x", Err: exit1}, Error},
		{"a wasm panic", &peers.Error{Peer: "p", Kind: peers.ErrCrash, Stderr: "error: RuntimeError: unreachable\n  at wasm", Err: exit1}, Crash},
		{"another exit status", &peers.Error{Peer: "p", Kind: peers.ErrCrash, Stderr: "Segfault", Err: exit3}, Crash},
		{"a hang", &peers.Error{Peer: "p", Kind: peers.ErrHang}, Crash},
		{"garbage", &peers.Error{Peer: "p", Kind: peers.ErrGarbage}, Crash},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Classify(vectorCase(), nil, peerFailure("p", tc.err)); got.Class != tc.want {
				t.Errorf("class %+v, want %s", got, tc.want)
			}
		})
	}
	missing := &peers.Error{Peer: "p", Kind: peers.ErrMissing}
	if err := peerFailure("p", missing); !errors.Is(err, peers.ErrMissing) {
		t.Errorf("a missing peer became %v", err)
	}
}

func jsonNumber(s string) any { return json.Number(s) }
