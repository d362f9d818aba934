package vectorcol

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkWriteFile measures WriteFile per layout and encoding on a
// 768-dimension column. MB/s is raw float32 bytes over the whole call, the
// fsync included; encode-MB/s leaves out the publish (fsync, rename), which
// WriteFileStats times apart (publish-ms). write-floor is the same bytes
// written with one write(2) per MiB into a new file and fsynced, in the
// same run: its MB/s is the durable floor, its encode-MB/s the page-cache
// floor.
func BenchmarkWriteFile(b *testing.B) {
	const rows, dim = 20_000, 768
	data := randomMatrix(5, rows, dim)
	col := Column{Dim: dim, Data: data.Data}
	dir := b.TempDir()
	raw := int64(rows * dim * 4)
	report := func(b *testing.B, encode, publish time.Duration) {
		b.ReportMetric(float64(raw)/1e6/(encode.Seconds()/float64(b.N)), "encode-MB/s")
		b.ReportMetric(publish.Seconds()*1e3/float64(b.N), "publish-ms")
	}
	for _, l := range []Layout{LayoutFLBA, LayoutList, LayoutVectorRepetition} {
		for _, e := range ValueEncodings() {
			for _, c := range []Codec{CodecNone, CodecZstd} {
				b.Run(l.String()+"/"+e.String()+"/"+c.String(), func(b *testing.B) {
					path := filepath.Join(dir, "w.parquet")
					b.SetBytes(raw)
					var encode, publish time.Duration
					for b.Loop() {
						st, err := WriteFileStats(path, col, WriteOptions{Layout: l, Encoding: e, Codec: c})
						if err != nil {
							b.Fatal(err)
						}
						encode += st.Encode
						publish += st.Publish
					}
					report(b, encode, publish)
				})
			}
		}
	}
	b.Run("write-floor", func(b *testing.B) {
		buf := make([]byte, raw)
		for i := range buf {
			buf[i] = byte(i)
		}
		b.SetBytes(raw)
		var encode, publish time.Duration
		for i := 0; b.Loop(); i++ {
			path := filepath.Join(dir, "floor.bin")
			t := time.Now()
			f, err := os.Create(path + ".tmp")
			if err != nil {
				b.Fatal(err)
			}
			for off := 0; off < len(buf); off += 1 << 20 {
				if _, err := f.Write(buf[off:min(off+1<<20, len(buf))]); err != nil {
					b.Fatal(err)
				}
			}
			encode += time.Since(t)
			t = time.Now()
			if err := f.Sync(); err != nil {
				b.Fatal(err)
			}
			f.Close()
			if err := os.Rename(path+".tmp", path); err != nil {
				b.Fatal(err)
			}
			publish += time.Since(t)
		}
		report(b, encode, publish)
	})
}
