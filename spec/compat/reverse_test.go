package compat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coltype-lab/lab/bench/peers"
	"github.com/coltype-lab/lab/internal/testenv"
	"github.com/coltype-lab/lab/spec/compat"
)

const (
	reverseExpectedPath = "reverse_expected.json"
	compatMarkdownPath  = "../COMPAT.md"
)

// TestReverseMatrix writes files with the pinned writers, runs every lab
// operation on each, and classes each cell by comparing the values with
// the writer's own read-back or the generator's data. Wrong and crash
// cells fail; an error cell must name the file; the classes are pinned in
// reverse_expected.json (-update rewrites it).
func TestReverseMatrix(t *testing.T) {
	for _, p := range []peers.Peer{peers.DuckDB, peers.ParquetWasm, peers.HyparquetWriter} {
		if err := p.Available(); err != nil {
			testenv.MissingPeer(t, err.Error())
		}
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "lab")
	build := exec.Command("go", "build", "-o", bin, "github.com/coltype-lab/lab/cmd/lab")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	cases, err := compat.DuckDBCases(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	arrowCases, err := compat.ArrowGoCases(dir)
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, arrowCases...)
	pqgoCases, err := compat.ParquetGoCases(dir)
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, pqgoCases...)
	jsCases, err := compat.JSCases(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, jsCases...)
	t.Logf("%d files written in %v", len(cases), time.Since(start).Round(time.Millisecond))
	paths := map[string]string{}
	for _, c := range cases {
		paths[c.ID()] = c.Path
	}

	lab := compat.Lab{Binary: bin, Timeout: 2 * time.Minute}
	type key struct{ id, op string }
	cells := map[key]compat.Cell{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	work := make(chan func())
	for range 2 {
		wg.Go(func() {
			for f := range work {
				f()
			}
		})
	}
	defects := map[string]string{}
	for _, c := range cases {
		if c.WriterDefect != "" {
			defects[c.ID()] = c.WriterDefect
			t.Logf("%s: writer defect, no cells: %s", c.ID(), c.WriterDefect)
			continue
		}
		for _, op := range compat.Ops() {
			if !c.Applies(op) {
				continue
			}
			work <- func() {
				cell := lab.RunOp(ctx, c, op)
				mu.Lock()
				cells[key{c.ID(), string(op)}] = cell
				mu.Unlock()
			}
		}
	}
	close(work)
	wg.Wait()

	got := map[string]map[string]compat.Class{}
	for id := range defects {
		got[id] = map[string]compat.Class{"writer": "writer defect"}
	}
	counts := map[compat.Class]int{}
	var keys []key
	for k := range cells {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].id+keys[i].op < keys[j].id+keys[j].op })
	errorNotes := map[string]string{}
	for _, k := range keys {
		cell := cells[k]
		if cell.Class == compat.Error {
			// The note without the temporary directory, for the markdown.
			errorNotes[k.id+" × "+k.op] = strings.ReplaceAll(cell.Note, dir+"/", "")
		}
		if got[k.id] == nil {
			got[k.id] = map[string]compat.Class{}
		}
		got[k.id][k.op] = cell.Class
		counts[cell.Class]++
		switch cell.Class {
		case compat.OK:
			if k.op == string(compat.OpBuilderFiltered) {
				t.Logf("%s × %s: %s", k.id, k.op, cell.Note) // how many rows the page index pruned
			}
		case compat.Wrong, compat.Crash:
			t.Errorf("%s × %s: %s: %s", k.id, k.op, cell.Class, cell.Note)
		case compat.Error:
			t.Logf("%s × %s: error: %s", k.id, k.op, cell.Note)
			if !strings.Contains(cell.Note, filepath.Base(paths[k.id])) && k.op != string(compat.OpBuilder) && k.op != string(compat.OpBuilderArrow) {
				t.Errorf("%s × %s: the error does not name the file: %s", k.id, k.op, cell.Note)
			}
		}
	}
	t.Logf("cells: %d ok, %d error, %d wrong, %d crash", counts[compat.OK], counts[compat.Error], counts[compat.Wrong], counts[compat.Crash])

	table := compat.ReverseMarkdown(got, errorNotes)
	md, err := os.ReadFile(compatMarkdownPath)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := strings.Index(string(md), compat.ReverseBegin), strings.Index(string(md), compat.ReverseEnd)
	if begin < 0 || end < begin {
		t.Fatalf("%s has no reverse-matrix markers", compatMarkdownPath)
	}
	section := string(md[begin+len(compat.ReverseBegin) : end])
	if *update {
		b, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(reverseExpectedPath, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		out := string(md[:begin+len(compat.ReverseBegin)]) + "\n" + table + string(md[end:])
		if err := os.WriteFile(compatMarkdownPath, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if strings.TrimSpace(section) != strings.TrimSpace(table) {
		t.Errorf("the reverse matrix in %s is out of date; run go test ./spec/compat -run TestReverseMatrix -update", compatMarkdownPath)
	}
	raw, err := os.ReadFile(reverseExpectedPath)
	if err != nil {
		t.Fatalf("%v (run go test ./spec/compat -run TestReverseMatrix -update)", err)
	}
	var want map[string]map[string]compat.Class
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	var diffs []string
	for id, ops := range got {
		for op, class := range ops {
			if want[id][op] != class {
				diffs = append(diffs, fmt.Sprintf("%s × %s: %s, pinned %q", id, op, class, want[id][op]))
			}
		}
	}
	for id, ops := range want {
		for op := range ops {
			if _, ok := got[id][op]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s × %s: pinned, not computed", id, op))
			}
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("the reverse matrix changed; if intended, run go test ./spec/compat -run TestReverseMatrix -update:\n%s", strings.Join(diffs, "\n"))
	}
}
