package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/footer"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/file"
)

func TestFileRefImages(t *testing.T) {
	a, b := FileRefImage(7, 3), FileRefImage(7, 3)
	if !bytes.Equal(a, b) {
		t.Fatal("FileRefImage is not deterministic")
	}
	if bytes.Equal(a, FileRefImage(8, 3)) || bytes.Equal(a, FileRefImage(7, 4)) {
		t.Fatal("images of another seed or index are equal")
	}
	if !bytes.HasPrefix(a, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("not a PNG: % x", a[:8])
	}
}

func TestFileRefBench(t *testing.T) {
	const n, seed = 300, 11
	dir := t.TempDir()
	rep, err := RunFileRefBench(FileRefConfig{N: n, Seed: seed, Dir: dir, Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := make([][32]byte, n)
	distinct := map[[32]byte]bool{}
	for i := range want {
		img := FileRefImage(seed, i)
		want[i] = sha256.Sum256(img)
		distinct[want[i]] = true
		// The images are meant to be small: about 1–4 KB.
		if len(img) < 1000 || len(img) > 4096 {
			t.Errorf("image %d is %d bytes, outside 1000–4096", i, len(img))
		}
	}
	if len(distinct) != n {
		t.Fatalf("%d distinct images of %d", len(distinct), n)
	}
	if rep.N != n || rep.Random != 100 || len(rep.Results) != len(FileRefLayouts) {
		t.Fatalf("report %+v", rep)
	}
	for i, res := range rep.Results {
		if res.Layout != FileRefLayouts[i] || res.Verified != n {
			t.Errorf("result %d: layout %s verified %d, want %s and %d", i, res.Layout, res.Verified, FileRefLayouts[i], n)
		}
		wantFiles := map[string]int{FileRefInline: 0, FileRefPack: 1, FileRefFiles: n}[res.Layout]
		if res.ExternalFiles != wantFiles || res.DiskBytes != res.ParquetBytes+res.ExternalBytes || res.ParquetBytes <= 0 {
			t.Errorf("%s: sizes %+v, want %d external files", res.Layout, res, wantFiles)
		}
		if res.Layout != FileRefInline && res.ExternalBytes != rep.ImageBytes {
			t.Errorf("%s: external bytes %d, images are %d", res.Layout, res.ExternalBytes, rep.ImageBytes)
		}
		for name, x := range map[string]float64{"write": res.WriteSeconds, "resolve all": res.ResolveAllSeconds, "random": res.RandomSeconds,
			"all/floor": res.ResolveAllFloorRatio, "random/floor": res.RandomFloorRatio} {
			if !(x > 0) {
				t.Errorf("%s: %s is %v", res.Layout, name, x)
			}
		}
	}
	if r := rep.Results[0]; r.WriteRatio != 1 || r.ResolveAllRatio != 1 || r.RandomRatio != 1 {
		t.Errorf("inline ratios to itself: %+v", r)
	}

	// Independently of the benchmark's own check: each layout's file is
	// annotated FILE, and every row resolves to exactly its image.
	for _, layout := range FileRefLayouts {
		t.Run(layout, func(t *testing.T) {
			ldir := filepath.Join(dir, layout)
			in := registry.LocalInput(filepath.Join(ldir, FileRefParquet))
			anns, err := parquet.FileAnnotations(in)
			if err != nil {
				t.Fatal(err)
			}
			if len(anns) != 1 || anns[0].Kind != footer.KindFile || strings.Join(anns[0].Path, ".") != FileRefColumn {
				t.Fatalf("annotations %+v, want FILE on %s", anns, FileRefColumn)
			}
			resolver, err := file.NewResolver(file.Config{Roots: []string{ldir}, Schemes: []string{"file"}, BaseLocation: ldir, VerifyChecksums: true})
			if err != nil {
				t.Fatal(err)
			}
			b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, in)
			if err != nil {
				t.Fatal(err)
			}
			r, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			rows := 0
			for ; ; rows++ {
				rec, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				id := int(rec.Get(0).(int64))
				v, err := file.FromRecord(rec.Get(1).(*data.Record))
				if err != nil {
					t.Fatal(err)
				}
				got, err := resolver.ReadAll(context.Background(), v)
				if err != nil {
					t.Fatalf("row %d: %v", rows, err)
				}
				if id != rows || sha256.Sum256(got) != want[id] || v.EffectiveContentType() != "image/png" {
					t.Fatalf("row %d (id %d, %s): %d bytes do not match image %d", rows, id, v, len(got), id)
				}
			}
			if rows != n {
				t.Fatalf("%d rows, want %d", rows, n)
			}
		})
	}

	if _, err := json.Marshal(rep); err != nil {
		t.Fatalf("report is not JSON-serializable: %v", err)
	}
	md := rep.Markdown()
	lines := strings.Split(strings.TrimSpace(md), "\n")
	var table []string
	for _, l := range lines {
		if strings.HasPrefix(l, "|") {
			table = append(table, l)
		}
	}
	if len(table) != 2+len(FileRefLayouts) {
		t.Fatalf("table has %d lines, want %d:\n%s", len(table), 2+len(FileRefLayouts), md)
	}
	cols := strings.Count(table[0], "|")
	for i, l := range table {
		if strings.Count(l, "|") != cols || strings.Contains(l, "NaN") || strings.Contains(l, "Inf") || strings.Contains(l, "| |") {
			t.Errorf("table line %d is incomplete: %s", i, l)
		}
	}
	for i, layout := range FileRefLayouts {
		if !strings.HasPrefix(table[2+i], "| "+layout+" |") || !strings.HasSuffix(table[2+i], "| 300/300 |") {
			t.Errorf("row for %s: %s", layout, table[2+i])
		}
	}
}

// BenchmarkFileRefs runs the reference-resolution benchmark at 10,000
// images and logs its table and JSON:
//
//	go test ./bench -run '^$' -bench BenchmarkFileRefs -benchtime 1x -v
func BenchmarkFileRefs(b *testing.B) {
	var rep *FileRefReport
	for b.Loop() {
		var err error
		if rep, err = RunFileRefBench(FileRefConfig{N: 10_000, Seed: 1, Dir: b.TempDir()}); err != nil {
			b.Fatal(err)
		}
	}
	for _, r := range rep.Results {
		b.ReportMetric(r.ResolveAllSeconds*1e3, r.Layout+"-all-ms")
		b.ReportMetric(r.RandomSeconds*1e3, r.Layout+"-random-ms")
	}
	js, _ := json.MarshalIndent(rep, "", "  ")
	b.Logf("\n%s\n%s", rep.Markdown(), js)
}
