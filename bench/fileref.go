package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apache/iceberg-go"

	"github.com/coltype-lab/lab/data"
	"github.com/coltype-lab/lab/formats/parquet/filecol"
	"github.com/coltype-lab/lab/internal/publish"
	"github.com/coltype-lab/lab/registry"
	"github.com/coltype-lab/lab/types/file"
)

// FileRefConfig configures RunFileRefBench.
type FileRefConfig struct {
	N    int    // images; default 10,000
	Seed uint64 // default 1
	// Dir holds the files, one directory per layout, kept afterwards
	// (default: a new temporary directory, removed afterwards).
	Dir    string
	Random int // rows of the random-access measurement; default 100
	Runs   int // timed runs per measurement, best kept; default 3
}

// The three ways the benchmark stores the images.
const (
	FileRefInline = "inline" // the bytes in the FILE column's inline child
	FileRefPack   = "pack"   // one external pack file; uri + offset + size
	FileRefFiles  = "files"  // one external file per image; uri only
)

// FileRefLayouts lists the layouts in the order they are reported.
var FileRefLayouts = []string{FileRefInline, FileRefPack, FileRefFiles}

// FileRefResult is one layout's figures. Ratios "to inline" divide by the
// inline layout's time; ratios "to floor" divide by the memory-bandwidth
// floor of the bytes the measurement resolves.
type FileRefResult struct {
	Layout        string
	ParquetBytes  int64 // the Parquet file
	ExternalFiles int   // files beside it (the pack, or one per image)
	ExternalBytes int64 // their total size
	DiskBytes     int64 // ParquetBytes + ExternalBytes
	// AllocatedBytes is what the file system allocated for all of them
	// (st_blocks × 512): small files each take at least a block.
	AllocatedBytes int64

	WriteSeconds float64 // the Parquet file and every external file
	WriteRatio   float64 // to inline

	// Resolve all: open, read the FILE column, resolve every row, read its
	// bytes into memory.
	ResolveAllSeconds    float64
	ResolveAllMBps       float64 // image bytes / second / 1e6
	ResolveAllRatio      float64 // to inline
	ResolveAllFloorRatio float64 // to the floor of all image bytes

	// Random: open, read the FILE column, resolve only the chosen rows.
	// Without row-level skipping in the reader the scan covers every row, so
	// the inline layout decodes every image to return a few.
	RandomSeconds    float64
	RandomRatio      float64 // to inline
	RandomFloorRatio float64 // to the floor of the chosen rows' bytes

	// Verified counts the rows whose resolved bytes equal the generated
	// image (checked once, untimed); it must equal N.
	Verified int
}

// FileRefReport is the outcome of RunFileRefBench.
type FileRefReport struct {
	N, Random  int
	Seed       uint64
	Runs       int
	ImageBytes int64 // all images
	MinImage   int
	MaxImage   int
	// RandomBytes is the size of the rows the random measurement resolves.
	RandomBytes int64
	FloorAll    FloorResult // at ImageBytes
	FloorRandom FloorResult // at RandomBytes
	Results     []FileRefResult
}

// FileRefImage is image i of the seeded set: a 32×32 opaque RGB PNG, a
// gradient around a mid-range colour, direction and colour varying with i, plus noise whose
// amplitude varies with i, so the images differ and their encoded sizes
// spread over about 1–4 KB. The same (seed, i) always gives the same bytes.
func FileRefImage(seed uint64, i int) []byte {
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	const side = 32
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	base := [3]int{64 + rng.IntN(128), 64 + rng.IntN(128), 64 + rng.IntN(128)}
	dx, dy := rng.IntN(9)-4, rng.IntN(9)-4
	amp := 6 + rng.IntN(250) // noise amplitude: sets how well the image compresses
	for y := range side {
		for x := range side {
			var c [3]uint8
			for k := range c {
				v := base[k] + dx*(x-side/2) + dy*(y-side/2) + rng.IntN(amp) - amp/2
				c[k] = uint8(min(max(v, 0), 255))
			}
			img.SetRGBA(x, y, color.RGBA{c[0], c[1], c[2], 255})
		}
	}
	var buf bytes.Buffer
	if err := fileRefPNG.Encode(&buf, img); err != nil {
		panic(err) // encoding an in-memory image to a buffer cannot fail
	}
	return buf.Bytes()
}

// fileRefPNG reuses the encoder's compressor: allocating a fresh one costs
// more than encoding a 32×32 image.
var fileRefPNG = png.Encoder{BufferPool: &pngPool{}}

type pngPool struct{ p sync.Pool }

func (p *pngPool) Get() *png.EncoderBuffer {
	b, _ := p.p.Get().(*png.EncoderBuffer)
	return b
}

func (p *pngPool) Put(b *png.EncoderBuffer) { p.p.Put(b) }

// FileRefImages is FileRefImage for i in [0, n).
func FileRefImages(seed uint64, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = FileRefImage(seed, i)
	}
	return out
}

// FileRefParquet is the Parquet file of a layout inside the layout's
// directory; FileRefColumn is its FILE column.
const (
	FileRefParquet = "images.parquet"
	FileRefColumn  = "image"
	fileRefPack    = "images.pack"
	fileRefFileDir = "images"
)

// fileRefSchema is (id long, image FILE) with the children the layout uses.
func fileRefSchema(layout string) (*iceberg.Schema, error) {
	var children []file.Field
	switch layout {
	case FileRefInline:
		children = []file.Field{file.FieldContentType, file.FieldInline}
	case FileRefPack:
		children = []file.Field{file.FieldURI, file.FieldOffset, file.FieldSize, file.FieldContentType}
	case FileRefFiles:
		children = []file.Field{file.FieldURI, file.FieldContentType}
	default:
		return nil, fmt.Errorf("bench: unknown FILE layout %q (want %s)", layout, strings.Join(FileRefLayouts, ", "))
	}
	col, err := file.Column(2, FileRefColumn, false, children...)
	if err != nil {
		return nil, err
	}
	return iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true}, col), nil
}

// RunFileRefBench generates N PNG images and stores them three ways (inline,
// one pack file with ranges, one file each), each Parquet file written
// through the registry with the FILE column declared, so it is annotated. It
// measures the size on disk, the write, resolving every row and resolving
// Random seeded rows, best of Runs; reads come from the page cache, since
// the files were just written. Every layout is checked, untimed, to resolve
// each row to exactly its image.
func RunFileRefBench(cfg FileRefConfig) (rep *FileRefReport, err error) {
	if cfg.N == 0 {
		cfg.N = 10_000
	}
	if cfg.N < 0 {
		return nil, fmt.Errorf("bench: FILE reference benchmark with %d images", cfg.N)
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.Random <= 0 {
		cfg.Random = 100
	}
	cfg.Random = min(cfg.Random, cfg.N)
	if cfg.Runs <= 0 {
		cfg.Runs = 3
	}
	if cfg.Dir == "" {
		tmp, err := os.MkdirTemp("", "lab-fileref-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		cfg.Dir = tmp
	}
	images := FileRefImages(cfg.Seed, cfg.N)
	rep = &FileRefReport{N: cfg.N, Random: cfg.Random, Seed: cfg.Seed, Runs: cfg.Runs, MinImage: -1}
	for _, b := range images {
		rep.ImageBytes += int64(len(b))
		rep.MaxImage = max(rep.MaxImage, len(b))
		if rep.MinImage < 0 || len(b) < rep.MinImage {
			rep.MinImage = len(b)
		}
	}
	rows := rand.New(rand.NewPCG(cfg.Seed, 0x72616e646f6d)).Perm(cfg.N)[:cfg.Random]
	chosen := make([]bool, cfg.N)
	for _, r := range rows {
		chosen[r] = true
		rep.RandomBytes += int64(len(images[r]))
	}
	if rep.FloorAll, err = Floor(max(rep.ImageBytes, 8), 5); err != nil {
		return nil, err
	}
	if rep.FloorRandom, err = Floor(max(rep.RandomBytes, 8), 5); err != nil {
		return nil, err
	}

	// Each measurement runs round-robin over the layouts, so load from other
	// processes on a shared machine falls on all of them alike.
	type subject struct {
		layout   string
		dir      string
		in       registry.InputFile
		resolver *file.Resolver
	}
	subjects := make([]subject, len(FileRefLayouts))
	rep.Results = make([]FileRefResult, len(FileRefLayouts))
	for i, layout := range FileRefLayouts {
		dir := filepath.Join(cfg.Dir, layout)
		subjects[i] = subject{layout: layout, dir: dir, in: registry.LocalInput(filepath.Join(dir, FileRefParquet))}
		rep.Results[i].Layout = layout
	}
	measure := func(what string, set func(*FileRefResult, float64), f func(subject) error) error {
		for range cfg.Runs {
			for i, s := range subjects {
				start := time.Now()
				if err := f(s); err != nil {
					return fmt.Errorf("bench: %s, %s layout: %w", what, s.layout, err)
				}
				set(&rep.Results[i], max(time.Since(start).Seconds(), 1e-9))
			}
		}
		return nil
	}
	best := func(field func(*FileRefResult) *float64) func(*FileRefResult, float64) {
		return func(r *FileRefResult, sec float64) {
			if p := field(r); *p == 0 || sec < *p {
				*p = sec
			}
		}
	}
	err = measure("write", best(func(r *FileRefResult) *float64 { return &r.WriteSeconds }), func(s subject) error {
		if err := os.RemoveAll(s.dir); err != nil {
			return err
		}
		return writeFileRefLayout(s.dir, s.layout, images)
	})
	if err != nil {
		return nil, err
	}
	for i := range subjects {
		if err := measureDisk(subjects[i].dir, &rep.Results[i]); err != nil {
			return nil, err
		}
		cfg := file.Config{Roots: []string{subjects[i].dir}, Schemes: []string{"file"}, BaseLocation: subjects[i].dir}
		if subjects[i].resolver, err = file.NewResolver(cfg); err != nil {
			return nil, err
		}
	}
	var sink uint64 // every resolved image is touched, so no read can be skipped
	consume := func(_ int, b []byte) error {
		sink += uint64(len(b)) + uint64(b[len(b)/2])
		return nil
	}
	err = measure("resolve all rows", best(func(r *FileRefResult) *float64 { return &r.ResolveAllSeconds }), func(s subject) error {
		return resolveFileRefs(s.in, s.resolver, nil, consume)
	})
	if err != nil {
		return nil, err
	}
	err = measure(fmt.Sprintf("resolve %d random rows", cfg.Random), best(func(r *FileRefResult) *float64 { return &r.RandomSeconds }), func(s subject) error {
		return resolveFileRefs(s.in, s.resolver, chosen, consume)
	})
	if err != nil {
		return nil, err
	}
	if sink == 0 && cfg.N > 0 {
		return nil, fmt.Errorf("bench: the layouts resolved no bytes")
	}
	for i, s := range subjects {
		res := &rep.Results[i]
		err = resolveFileRefs(s.in, s.resolver, nil, func(id int, b []byte) error {
			if id < 0 || id >= len(images) || !bytes.Equal(b, images[id]) {
				return fmt.Errorf("row with id %d resolved to %d bytes that are not its image", id, len(b))
			}
			res.Verified++
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("bench: verify %s layout: %w", s.layout, err)
		}
		res.ResolveAllMBps = float64(rep.ImageBytes) / res.ResolveAllSeconds / 1e6
		res.ResolveAllFloorRatio = res.ResolveAllSeconds / rep.FloorAll.Seconds
		res.RandomFloorRatio = res.RandomSeconds / rep.FloorRandom.Seconds
	}
	inline := rep.Results[0]
	for i := range rep.Results {
		r := &rep.Results[i]
		r.WriteRatio = r.WriteSeconds / inline.WriteSeconds
		r.ResolveAllRatio = r.ResolveAllSeconds / inline.ResolveAllSeconds
		r.RandomRatio = r.RandomSeconds / inline.RandomSeconds
	}
	return rep, nil
}

// writeFileRefLayout writes the external files, if any, then the Parquet
// file through the registry with the image column declared FILE.
func writeFileRefLayout(dir, layout string, images [][]byte) (err error) {
	schema, err := fileRefSchema(layout)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	values := make([]*file.Value, len(images))
	ct := file.Ptr("image/png")
	switch layout {
	case FileRefInline:
		for i, b := range images {
			values[i] = &file.Value{Inline: b, ContentType: ct}
		}
	case FileRefPack:
		f, err := publish.Create(filepath.Join(dir, fileRefPack), true)
		if err != nil {
			return err
		}
		defer f.Abort() // after Commit, nothing
		w := bufio.NewWriterSize(f, 1<<20)
		var off int64
		uri := file.Ptr(fileRefPack)
		for i, b := range images {
			if _, err := w.Write(b); err != nil {
				return err
			}
			values[i] = &file.Value{URI: uri, Offset: file.Ptr(off), Size: file.Ptr(int64(len(b))), ContentType: ct}
			off += int64(len(b))
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if err := f.Commit(); err != nil {
			return err
		}
	case FileRefFiles:
		if err := os.MkdirAll(filepath.Join(dir, fileRefFileDir), 0o755); err != nil {
			return err
		}
		for i, b := range images {
			name := fmt.Sprintf("%s/%06d.png", fileRefFileDir, i)
			if err := publish.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), b, 0o644); err != nil {
				return err
			}
			values[i] = &file.Value{URI: file.Ptr(name), ContentType: ct}
		}
	}
	b, err := registry.DataWriteBuilder[*data.Record](registry.PARQUET, registry.LocalOutput(filepath.Join(dir, FileRefParquet)))
	if err != nil {
		return err
	}
	w, err := b.Schema(schema).Set(filecol.PropColumns, FileRefColumn).Build()
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = w.Abort()
		}
	}()
	colType := schema.Field(1).Type.(*iceberg.StructType)
	layoutOf, err := file.ParseStruct(colType)
	if err != nil {
		return err
	}
	row := data.NewRecord(schema)
	for i, v := range values {
		group, err := layoutOf.Encode(v)
		if err != nil {
			return err
		}
		row.Set(0, int64(i))
		row.Set(1, group)
		if err := w.Write(row); err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
	}
	return w.Close()
}

// measureDisk fills the size figures from what dir holds.
func measureDisk(dir string, res *FileRefResult) error {
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.Name() == FileRefParquet {
			res.ParquetBytes = fi.Size()
		} else {
			res.ExternalFiles++
			res.ExternalBytes += fi.Size()
		}
		res.DiskBytes += fi.Size()
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			res.AllocatedBytes += int64(st.Blocks) * 512
		}
		return nil
	})
}

// resolveFileRefs reads the id and image columns through the registry and
// hands each resolved row's bytes to use, for the rows in only (all rows
// when only is nil). The bytes are valid only during the call.
func resolveFileRefs(in registry.InputFile, resolver *file.Resolver, only []bool, use func(id int, b []byte) error) error {
	b, err := registry.NewReadBuilder[*data.Record](registry.PARQUET, in)
	if err != nil {
		return err
	}
	r, err := b.ReuseContainers().Build()
	if err != nil {
		return err
	}
	defer r.Close()
	var layout *file.Layout
	var buf bytes.Buffer
	ctx := context.Background()
	for row := 0; ; row++ {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if only != nil && (row >= len(only) || !only[row]) {
			continue
		}
		group, _ := rec.Get(1).(*data.Record)
		if group == nil {
			return fmt.Errorf("%s: row %d: image is null", in.Location, row)
		}
		if layout == nil {
			if layout, err = file.ParseStruct(group.Struct()); err != nil {
				return err
			}
		}
		v, err := layout.Decode(group)
		if err != nil {
			return err
		}
		rc, err := resolver.Open(ctx, v)
		if err != nil {
			return fmt.Errorf("%s: row %d: %w", in.Location, row, err)
		}
		buf.Reset()
		_, err = buf.ReadFrom(rc)
		if cerr := rc.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: row %d: %w", in.Location, row, err)
		}
		id, _ := rec.Get(0).(int64)
		if err := use(int(id), buf.Bytes()); err != nil {
			return err
		}
	}
}

// Markdown renders the report as a Markdown table, one row per layout.
func (r *FileRefReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d PNG images (32×32, seed %d): %.2f MB, %d–%d bytes each; best of %d runs; page cache warm.\n",
		r.N, r.Seed, float64(r.ImageBytes)/1e6, r.MinImage, r.MaxImage, r.Runs)
	fmt.Fprintf(&b, "Floor: all images %.3f ms (%.2f GB/s); %d random rows (%d bytes) %.4f ms.\n\n",
		r.FloorAll.Seconds*1e3, r.FloorAll.GBps, r.Random, r.RandomBytes, r.FloorRandom.Seconds*1e3)
	b.WriteString("| layout | Parquet MB | external files | on disk MB | allocated MB | write ms | write/inline | resolve all ms | MB/s | all/inline | all/floor | random ms | random/inline | random/floor | verified |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, x := range r.Results {
		fmt.Fprintf(&b, "| %s | %.3f | %d | %.3f | %.3f | %.1f | %.2f | %.1f | %.0f | %.2f | %.0f | %.2f | %.2f | %.0f | %d/%d |\n",
			x.Layout, float64(x.ParquetBytes)/1e6, x.ExternalFiles, float64(x.DiskBytes)/1e6, float64(x.AllocatedBytes)/1e6,
			x.WriteSeconds*1e3, x.WriteRatio, x.ResolveAllSeconds*1e3, x.ResolveAllMBps, x.ResolveAllRatio, x.ResolveAllFloorRatio,
			x.RandomSeconds*1e3, x.RandomRatio, x.RandomFloorRatio, x.Verified, r.N)
	}
	return b.String()
}
