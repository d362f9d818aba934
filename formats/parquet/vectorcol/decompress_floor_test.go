package vectorcol

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// DecompressPages inflates every page of every layout and codec, and
// fails, naming the page, on a page whose compressed bytes are damaged.
func TestDecompressPages(t *testing.T) {
	dir := t.TempDir()
	col := testColumn(3000, 16, true, false, 5)
	var raw int64 // the bytes of the non-null vectors' values
	for _, null := range col.Null {
		if !null {
			raw += int64(col.Dim * 4)
		}
	}
	for _, layout := range []Layout{LayoutFLBA, LayoutList, LayoutVectorRepetition} {
		for _, codec := range []Codec{CodecNone, CodecZstd, CodecSnappy, CodecLZ4} {
			path := filepath.Join(dir, layout.String()+"-"+codec.String()+".parquet")
			if err := WriteFile(path, col, WriteOptions{Layout: layout, Codec: codec, PageBytes: 16 << 10}); err != nil {
				t.Fatal(err)
			}
			f, err := OpenFile(path)
			if err != nil {
				t.Fatal(err)
			}
			pages, n, err := f.DecompressPages(0)
			f.Close()
			if err != nil {
				t.Fatalf("%s/%s: %v", layout, codec, err)
			}
			// The values, and levels on top (a v1 body holds them).
			if pages < 4 || n < raw || n > raw+raw/4 {
				t.Fatalf("%s/%s: %d pages, %d bytes for %d raw", layout, codec, pages, n, raw)
			}
		}
	}
	path := filepath.Join(dir, "flba-zstd.parquet")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := f.pageRefs(0)
	if err != nil || len(refs) < 2 {
		t.Fatal(err, len(refs))
	}
	h, hlen, _, err := f.readHeader(refs[1].offset, f.chunks[0].end)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// Damage the zstd frame's magic number in the second page's body (after
	// the levels, on a v2 page).
	at := refs[1].offset + int64(hlen)
	if h.DataPageHeaderV2.Valid {
		at += int64(h.DataPageHeaderV2.V.RepetitionLevelsByteLength + h.DataPageHeaderV2.V.DefinitionLevelsByteLength)
	}
	for i := at; i < at+4; i++ {
		b[i] ^= 0xff
	}
	bad := filepath.Join(dir, "bad.parquet")
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err = OpenFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, _, err := f.DecompressPages(2); err == nil || !strings.Contains(err.Error(), "page at byte") {
		t.Fatalf("damaged page: %v", err)
	}
}
