package pages

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/bytestreamsplit"
)

// bssNaive is the reference: dst[i*K+k] = src[k*N+i].
func bssNaive(src []byte, width int) []byte {
	n := len(src) / width
	dst := make([]byte, len(src))
	for k := 0; k < width; k++ {
		for i := 0; i < n; i++ {
			dst[i*width+k] = src[k*n+i]
		}
	}
	return dst
}

// bssPaths runs f with the assembly kernels (where they exist) and with the
// Go fallback forced.
func bssPaths(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, force := range []bool{false, true} {
		name := "default"
		if force {
			name = "go"
		}
		t.Run(name, func(t *testing.T) {
			old := bssForceGo
			bssForceGo = force
			defer func() { bssForceGo = old }()
			f(t)
		})
	}
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for j := range 8 {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	for i := n &^ 7; i < n; i++ {
		b[i] = byte(r.Uint32())
	}
	return b
}

var (
	bssTestWidths = []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 64, 65, 200, 768 * 2, 768 * 4}
	bssTestCounts = []int{0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 1000, bssChunk + 1, 4097}
)

func TestDecodeBSS(t *testing.T) {
	t.Logf("AVX2 kernels available: %v", haveBSSAVX2)
	r := rand.New(rand.NewPCG(1, 2))
	var pq bytestreamsplit.Encoding
	bssPaths(t, func(t *testing.T) {
		for _, k := range bssTestWidths {
			for _, n := range bssTestCounts {
				size := k * n
				// Unaligned source and destination: offsets into larger
				// buffers, with guard bytes after the destination.
				offsets := [][2]int{{0, 0}, {1, 3}, {5, 2}, {3, 7}}
				if size > 1<<20 {
					offsets = offsets[1:2]
				}
				for _, off := range offsets {
					so, do := off[0], off[1]
					sbuf := randBytes(r, so+size)
					src := sbuf[so:]
					want := bssNaive(src, k)
					srcBefore := bytes.Clone(src)
					const guard = 40
					dbuf := randBytes(r, do+size+guard)
					before := bytes.Clone(dbuf)
					dst := dbuf[do : do+size : do+size]
					if err := DecodeBSS(dst, src, k); err != nil {
						t.Fatalf("K=%d N=%d: %v", k, n, err)
					}
					if !bytes.Equal(dst, want) {
						t.Fatalf("K=%d N=%d off=%v: first difference at %d", k, n, off, firstDiff(dst, want))
					}
					if !bytes.Equal(dbuf[:do], before[:do]) || !bytes.Equal(dbuf[do+size:], before[do+size:]) {
						t.Fatalf("K=%d N=%d off=%v: wrote outside dst", k, n, off)
					}
					if !bytes.Equal(srcBefore, src) {
						t.Fatalf("K=%d N=%d: src modified", k, n)
					}
					got, err := pq.DecodeFixedLenByteArray(nil, src, k)
					if err != nil {
						t.Fatalf("parquet-go K=%d N=%d: %v", k, n, err)
					}
					if !bytes.Equal(dst, got) {
						t.Fatalf("K=%d N=%d: differs from parquet-go DecodeFixedLenByteArray at %d", k, n, firstDiff(dst, got))
					}
					if k == 8 {
						f, err := pq.DecodeDouble(nil, src)
						if err != nil {
							t.Fatal(err)
						}
						for i, v := range f {
							if math.Float64bits(v) != binary.LittleEndian.Uint64(dst[8*i:]) {
								t.Fatalf("N=%d: double %d differs from parquet-go DecodeDouble", n, i)
							}
						}
					}
					if k == 4 {
						f, err := pq.DecodeFloat(nil, src)
						if err != nil {
							t.Fatal(err)
						}
						if len(f) != n {
							t.Fatalf("parquet-go DecodeFloat gave %d values for %d", len(f), n)
						}
						f2 := make([]float32, n)
						if err := DecodeBSSFloat32(f2, src); err != nil {
							t.Fatal(err)
						}
						for i := range f {
							if f[i] != f2[i] && !(f[i] != f[i] && f2[i] != f2[i]) {
								t.Fatalf("N=%d: float %d = %v, parquet-go %v", n, i, f2[i], f[i])
							}
						}
						// Bit patterns, NaNs included, must match the bytes.
						if !bytes.Equal(float32Bytes(f2), want) {
							t.Fatalf("N=%d: DecodeBSSFloat32 bytes differ from reference", n)
						}
					}
				}
			}
		}
	})
}

func float32Bytes(f []float32) []byte {
	b := make([]byte, 0, 4*len(f))
	for _, v := range f {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestDecodeBSSErrors(t *testing.T) {
	for _, c := range []struct {
		dst, src, width int
	}{
		{4, 4, 0}, {4, 4, -1}, {5, 5, 4}, {8, 4, 4}, {4, 8, 4}, {3072, 3071, 3072},
	} {
		if err := DecodeBSS(make([]byte, c.dst), make([]byte, c.src), c.width); err == nil {
			t.Errorf("DecodeBSS(dst %d, src %d, width %d): no error", c.dst, c.src, c.width)
		}
	}
	if err := DecodeBSSFloat32(make([]float32, 2), make([]byte, 7)); err == nil {
		t.Error("DecodeBSSFloat32 with 7 bytes: no error")
	}
	if err := DecodeBSSFloat32(make([]float32, 3), make([]byte, 8)); err == nil {
		t.Error("DecodeBSSFloat32 with 3 floats for 8 bytes: no error")
	}
	if err := DecodeBSSFloat32(nil, nil); err != nil {
		t.Errorf("DecodeBSSFloat32(nil, nil): %v", err)
	}
	if err := DecodeBSS(nil, nil, 3072); err != nil {
		t.Errorf("DecodeBSS(nil, nil, 3072): %v", err)
	}
}

// TestDecodeBSSFloat32Unaligned decodes into float32 memory at every byte
// offset of the source.
func TestDecodeBSSFloat32Unaligned(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	bssPaths(t, func(t *testing.T) {
		for _, n := range []int{1, 31, 32, 33, 100, 1025} {
			for so := range 4 {
				sbuf := randBytes(r, so+4*n)
				src := sbuf[so:]
				want := bssNaive(src, 4)
				f := make([]float32, n+2)
				if err := DecodeBSSFloat32(f[1:n+1], src); err != nil {
					t.Fatal(err)
				}
				if f[0] != 0 || f[n+1] != 0 {
					t.Fatalf("N=%d: wrote outside dst", n)
				}
				if !bytes.Equal(float32Bytes(f[1:n+1]), want) {
					t.Fatalf("N=%d src offset %d: wrong values", n, so)
				}
			}
		}
	})
}

func FuzzDecodeBSS(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, byte(4))
	f.Add(bytes.Repeat([]byte{1, 2, 3}, 100), byte(3))
	f.Add(randBytes(rand.New(rand.NewPCG(5, 6)), 8*40), byte(8))
	f.Add(randBytes(rand.New(rand.NewPCG(7, 8)), 4*65), byte(4))
	f.Add(randBytes(rand.New(rand.NewPCG(9, 10)), 2*33), byte(2))
	f.Add(randBytes(rand.New(rand.NewPCG(11, 12)), 12*40), byte(12))
	f.Add(randBytes(rand.New(rand.NewPCG(13, 14)), 64*40), byte(64))
	f.Add(randBytes(rand.New(rand.NewPCG(15, 16)), 100*33), byte(100))
	f.Add([]byte{}, byte(0))
	f.Fuzz(func(t *testing.T, data []byte, w byte) {
		width := int(w)
		for _, force := range []bool{false, true} {
			old := bssForceGo
			bssForceGo = force
			dst := make([]byte, len(data))
			err := DecodeBSS(dst, data, width)
			bssForceGo = old
			if width == 0 || len(data)%width != 0 {
				if err == nil {
					t.Fatalf("width %d, %d bytes: no error", width, len(data))
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := bssNaive(data, width); !bytes.Equal(dst, want) {
				t.Fatalf("force go %v, width %d, %d bytes: first difference at %d", force, width, len(data), firstDiff(dst, want))
			}
			// The encoder is the decoder's inverse on the same paths.
			bssForceGo = force
			enc := make([]byte, len(data))
			EncodeBSS(enc, dst, width)
			bssForceGo = old
			if !bytes.Equal(enc, data) {
				t.Fatalf("force go %v, width %d, %d bytes: encode(decode(x)) differs at %d", force, width, len(data), firstDiff(enc, data))
			}
		}
	})
}

func BenchmarkDecodeBSS(b *testing.B) {
	for _, c := range []struct{ k, n int }{{4, 2 << 20}, {3072, 341}, {3072, 4096}, {2, 2 << 20}, {8, 1 << 20}} {
		src := randBytes(rand.New(rand.NewPCG(1, 1)), c.k*c.n)
		dst := make([]byte, len(src))
		run := func(name string, f func()) {
			b.Run(fmt.Sprintf("K=%d/N=%d/%s", c.k, c.n, name), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					f()
				}
				b.ReportMetric(float64(len(src))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			})
		}
		run("bss", func() { _ = DecodeBSS(dst, src, c.k) })
		run("copy", func() { copy(dst, src) }) // memory-speed reference
		run("go", func() {
			bssForceGo = true
			_ = DecodeBSS(dst, src, c.k)
			bssForceGo = false
		})
		var pq bytestreamsplit.Encoding
		if c.k == 4 {
			fdst := make([]float32, c.n)
			run("float32", func() { _ = DecodeBSSFloat32(fdst, src) })
			run("parquet-go-float", func() { fdst, _ = pq.DecodeFloat(fdst[:0], src) })
		}
		if c.k == 8 {
			ddst := make([]float64, c.n)
			run("parquet-go-double", func() { ddst, _ = pq.DecodeDouble(ddst[:0], src) })
		}
		run("parquet-go-flba", func() { dst, _ = pq.DecodeFixedLenByteArray(dst[:0], src, c.k) })
	}
}
